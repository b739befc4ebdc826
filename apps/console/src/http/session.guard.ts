import { createParamDecorator, Inject, Injectable, SetMetadata, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ProblemError } from '@settle/platform';
import type { FastifyRequest } from 'fastify';
import type { AuthService, SessionView } from '../auth/auth.service.js';
import { roleAtLeast, type ConsoleRole } from '../auth/roles.js';
import { tokensEqual } from '../auth/secrets.js';
import { AUTH_SERVICE, CSRF_HEADER, SESSION_COOKIE } from './tokens.js';

const PUBLIC = 'console:public';
const MIN_ROLE = 'console:min-role';

/** Marks a route that needs no session (signing in). */
export const Public = () => SetMetadata(PUBLIC, true);

/** The weakest role a route (or every route of a controller) accepts; default `viewer`. */
export const MinRole = (role: ConsoleRole) => SetMetadata(MIN_ROLE, role);

/** The session of a request, with the cookie's token it was found by. */
export type RequestSession = SessionView & { token: string };

type ConsoleRequest = FastifyRequest & { consoleSession?: RequestSession };

/** Methods that change nothing and need no CSRF token. */
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * The console's sessions, CSRF and roles, in that order (docs/console.md, "Security"):
 * 1. the `settle_console_session` cookie must name a live session;
 * 2. a state-changing request (not GET, HEAD, OPTIONS) must carry `x-csrf-token` equal to the
 *    session's CSRF token, compared in constant time;
 * 3. the session's role must be at least the route's {@link MinRole} (viewer < operator < admin).
 * Routes marked {@link Public} skip all three.
 *
 * @throws ProblemError 401 `CONSOLE.UNAUTHENTICATED`, 403 `CONSOLE.CSRF_REJECTED`, 403 `CONSOLE.FORBIDDEN`.
 */
@Injectable()
export class SessionGuard implements CanActivate {
  constructor(
    @Inject(AUTH_SERVICE) private readonly auth: AuthService,
    @Inject(Reflector) private readonly reflector: Reflector,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (this.reflector.getAllAndOverride<boolean>(PUBLIC, [context.getHandler(), context.getClass()])) return true;
    const request = context.switchToHttp().getRequest<ConsoleRequest>();
    const token = request.cookies?.[SESSION_COOKIE];
    const session = token ? await this.auth.sessionOf(token) : null;
    if (!token || !session) throw new ProblemError(401, 'CONSOLE.UNAUTHENTICATED', 'Not signed in', 'Sign in with POST /api/v1/session');
    if (!SAFE_METHODS.has(request.method)) {
      const presented = request.headers[CSRF_HEADER];
      if (typeof presented !== 'string' || !tokensEqual(presented, session.csrfToken)) {
        throw new ProblemError(403, 'CONSOLE.CSRF_REJECTED', 'CSRF token rejected', `Send the session's csrfToken in the ${CSRF_HEADER} header`);
      }
    }
    const required = this.reflector.getAllAndOverride<ConsoleRole | undefined>(MIN_ROLE, [context.getHandler(), context.getClass()]) ?? 'viewer';
    if (!roleAtLeast(session.user.role, required)) {
      throw new ProblemError(403, 'CONSOLE.FORBIDDEN', 'Forbidden', `This needs the ${required} role or a stronger one`);
    }
    request.consoleSession = { ...session, token };
    return true;
  }
}

/** The request's session, set by {@link SessionGuard} (undefined on a {@link Public} route). */
export const CurrentSession = createParamDecorator((_data: unknown, context: ExecutionContext): RequestSession | undefined => {
  return context.switchToHttp().getRequest<ConsoleRequest>().consoleSession;
});
