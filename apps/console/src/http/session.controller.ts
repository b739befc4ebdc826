import { Body, Controller, Delete, Get, HttpCode, Inject, Post, Req, Res, UseGuards } from '@nestjs/common';
import { ApiCookieAuth, ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';
import { ApiAnswer, ApiBodyOf, ApiProblems, JSON_BODY_PROBLEMS, parseBody } from '@settle/http';
import { SECURITY } from './openapi/document.js';
import { ProblemError } from '@settle/platform';
import { z } from 'zod';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AuthService } from '../auth/auth.service.js';
import { CONSOLE_ROLES, type ConsoleRole } from '../auth/roles.js';
import { signInBody } from './requests.js';
import { CurrentSession, Public, SessionGuard, type RequestSession } from './session.guard.js';
import { AUTH_SERVICE, COOKIE_SETTINGS, SESSION_COOKIE, type CookieSettings } from './tokens.js';

/** `POST /api/v1/session`, `GET /api/v1/session`. */
const sessionAnswer = z.strictObject({
  user: z.strictObject({ email: z.string(), role: z.enum(CONSOLE_ROLES) }),
  csrfToken: z.string().describe('Send it in `x-csrf-token` with every POST, PUT, PATCH and DELETE'),
});

/** What the session endpoints answer. */
export interface SessionAnswer {
  user: { email: string; role: ConsoleRole };
  csrfToken: string;
}

/**
 * The console's session (docs/console.md, "API"):
 * - `POST /api/v1/session` `{ email, password }`: signs in, sets the `settle_console_session`
 *   cookie; 401 `CONSOLE.INVALID_CREDENTIALS`, 429 `CONSOLE.LOGIN_LOCKED` with `Retry-After`;
 * - `GET /api/v1/session`: the signed-in user and the session's CSRF token;
 * - `DELETE /api/v1/session`: signs out (CSRF token required), 204.
 */
@ApiTags('session')
@Controller('api/v1/session')
@UseGuards(SessionGuard)
export class SessionController {
  constructor(
    @Inject(AUTH_SERVICE) private readonly auth: AuthService,
    @Inject(COOKIE_SETTINGS) private readonly cookies: CookieSettings,
  ) {}

  @Post()
  @Public()
  @HttpCode(200)
  @ApiOperation({
    summary: 'Sign in',
    description: 'Sets the session cookie; answers the user and the CSRF token. Five failures within 15 minutes lock the email.',
  })
  @ApiBodyOf(signInBody)
  @ApiAnswer(200, sessionAnswer, 'Signed in')
  @ApiProblems(...JSON_BODY_PROBLEMS, [400, 'REQUEST.VALIDATION_FAILED'], [401, 'CONSOLE.INVALID_CREDENTIALS'], [429, 'CONSOLE.LOGIN_LOCKED'])
  async signIn(@Body() body: unknown, @Req() request: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply): Promise<SessionAnswer> {
    const input = parseBody(signInBody, body);
    const result = await this.auth.signIn(input.email, input.password);
    if (result.outcome === 'locked') {
      const seconds = Math.ceil(result.retryAfterMs / 1000);
      void reply.header('retry-after', String(seconds));
      throw new ProblemError(429, 'CONSOLE.LOGIN_LOCKED', 'Too many failed sign-ins', `This email is locked for ${seconds} s after repeated failures`);
    }
    // A session this browser held before is ended: one cookie, one session.
    const previous = request.cookies?.[SESSION_COOKIE];
    if (previous) await this.auth.signOut(previous);
    void reply.setCookie(SESSION_COOKIE, result.token, {
      httpOnly: true,
      sameSite: 'strict',
      path: '/',
      secure: this.cookies.secure,
      expires: result.expiresAt,
      maxAge: Math.max(0, Math.round((result.expiresAt.getTime() - Date.now()) / 1000)),
    });
    return { user: result.user, csrfToken: result.csrfToken };
  }

  @Get()
  @ApiCookieAuth(SECURITY.session)
  @ApiOperation({ summary: 'The current session', description: 'The signed-in user and the CSRF token, read afresh.' })
  @ApiAnswer(200, sessionAnswer, 'The session')
  @ApiProblems([401, 'CONSOLE.UNAUTHENTICATED'])
  current(@CurrentSession() session: RequestSession): SessionAnswer {
    return { user: session.user, csrfToken: session.csrfToken };
  }

  @Delete()
  @HttpCode(204)
  @ApiCookieAuth(SECURITY.session)
  @ApiSecurity(SECURITY.csrf)
  @ApiOperation({ summary: 'Sign out', description: 'Deletes the session and clears the cookie.' })
  @ApiAnswer(204, null, 'Signed out')
  @ApiProblems([401, 'CONSOLE.UNAUTHENTICATED'], [403, 'CONSOLE.CSRF_REJECTED'])
  async signOut(@CurrentSession() session: RequestSession, @Res({ passthrough: true }) reply: FastifyReply): Promise<void> {
    await this.auth.signOut(session.token);
    void reply.clearCookie(SESSION_COOKIE, { path: '/', httpOnly: true, sameSite: 'strict', secure: this.cookies.secure });
  }
}
