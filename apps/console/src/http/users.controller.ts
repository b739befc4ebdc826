import { Body, Controller, Get, HttpCode, Inject, Param, Patch, Post, UseGuards } from '@nestjs/common';
import { ApiCookieAuth, ApiOperation, ApiParam, ApiSecurity, ApiTags } from '@nestjs/swagger';
import { ApiAnswer, ApiBodyOf, ApiProblems, isoTime, JSON_BODY_PROBLEMS, parseBody } from '@settle/http';
import { z } from 'zod';
import { SECURITY } from './openapi/document.js';
import { CONSOLE_ROLES } from '../auth/roles.js';
import type { UserAdminService, UserView, UserWithPassword } from '../users/user-admin.service.js';
import { createUserBody, pathEmail, updateUserBody } from './requests.js';
import { CurrentSession, MinRole, SessionGuard, type RequestSession } from './session.guard.js';
import { USER_ADMIN } from './tokens.js';

/** `PATCH /api/v1/users/{email}`: one user. */
const userAnswer = z.strictObject({
  email: z.string(),
  role: z.enum(CONSOLE_ROLES),
  disabled: z.boolean(),
  createdAt: isoTime,
  lastSignInAt: isoTime.nullable(),
});

/** `GET /api/v1/users`. */
const userListAnswer = z.strictObject({ items: z.array(userAnswer) });

/** `POST /api/v1/users`, `POST /api/v1/users/{email}/password`: the user and a generated password, shown this once. */
const userWithPasswordAnswer = z.strictObject({
  user: userAnswer,
  password: z.string().describe('Generated; shown once, stored only as an argon2id hash'),
});

/**
 * The console's users (admin only; every change CSRF-checked and recorded in the audit trail
 * first), docs/console.md, "API" and "Users":
 * - `GET /api/v1/users`: every user by email, with role, disabled, created and last sign-in;
 * - `POST /api/v1/users` `{ email, role }`: 201 with the user and a generated password, shown once;
 * - `PATCH /api/v1/users/:email` `{ role?, disabled? }`: 200 with the user; disabling ends their sessions;
 * - `POST /api/v1/users/:email/password`: 200 with the user and a new generated password; ends their sessions.
 *
 * Errors: 400 `REQUEST.VALIDATION_FAILED`; 403 `CONSOLE.FORBIDDEN` below admin; 404
 * `CONSOLE.USER_NOT_FOUND`; 409 `CONSOLE.USER_EXISTS`, `CONSOLE.SELF_CHANGE_REFUSED`,
 * `CONSOLE.LAST_ADMIN`; 503 `CONSOLE.AUDIT_UNAVAILABLE`.
 */
@ApiTags('users')
@ApiCookieAuth(SECURITY.session)
@ApiProblems([401, 'CONSOLE.UNAUTHENTICATED'], [403, 'CONSOLE.FORBIDDEN'])
@Controller('api/v1/users')
@UseGuards(SessionGuard)
@MinRole('admin')
export class UsersController {
  constructor(@Inject(USER_ADMIN) private readonly users: UserAdminService) {}

  @Get()
  @ApiOperation({ summary: 'List users (admin)', description: 'Every console user by email, with role, disabled, created and last sign-in.' })
  @ApiAnswer(200, userListAnswer, 'The users')
  async list(): Promise<{ items: UserView[] }> {
    return { items: await this.users.list() };
  }

  @Post()
  @HttpCode(201)
  @ApiSecurity(SECURITY.csrf)
  @ApiOperation({ summary: 'Add a user (admin)', description: 'Generates a password, answered this once. Recorded in the ledger with the actor first.' })
  @ApiBodyOf(createUserBody)
  @ApiAnswer(201, userWithPasswordAnswer, 'Created')
  @ApiProblems(
    ...JSON_BODY_PROBLEMS,
    [400, 'REQUEST.VALIDATION_FAILED'],
    [403, 'CONSOLE.CSRF_REJECTED'],
    [409, 'CONSOLE.USER_EXISTS'],
    [503, 'CONSOLE.AUDIT_UNAVAILABLE'],
  )
  create(@Body() body: unknown, @CurrentSession() session: RequestSession): Promise<UserWithPassword> {
    const input = parseBody(createUserBody, body);
    return this.users.create(session.user, input.email, input.role);
  }

  @Patch(':email')
  @ApiSecurity(SECURITY.csrf)
  @ApiOperation({
    summary: 'Change a role, disable or enable (admin)',
    description: "Disabling ends the user's sessions at once. Recorded in the ledger with the actor first.",
  })
  @ApiParam({ name: 'email', description: "The user's email" })
  @ApiBodyOf(updateUserBody)
  @ApiAnswer(200, userAnswer, 'Changed')
  @ApiProblems(
    ...JSON_BODY_PROBLEMS,
    [400, 'REQUEST.VALIDATION_FAILED'],
    [403, 'CONSOLE.CSRF_REJECTED'],
    [404, 'CONSOLE.USER_NOT_FOUND'],
    [409, 'CONSOLE.SELF_CHANGE_REFUSED'],
    [409, 'CONSOLE.LAST_ADMIN'],
    [503, 'CONSOLE.AUDIT_UNAVAILABLE'],
  )
  update(@Param('email') email: string, @Body() body: unknown, @CurrentSession() session: RequestSession): Promise<UserView> {
    const target = pathEmail(email);
    const input = parseBody(updateUserBody, body);
    return this.users.update(session.user, target, input);
  }

  @Post(':email/password')
  @HttpCode(200)
  @ApiSecurity(SECURITY.csrf)
  @ApiOperation({ summary: 'Reset a password (admin)', description: "Generates a new password, answered this once; ends the user's sessions." })
  @ApiParam({ name: 'email', description: "The user's email" })
  @ApiAnswer(200, userWithPasswordAnswer, 'Reset')
  @ApiProblems([403, 'CONSOLE.CSRF_REJECTED'], [404, 'CONSOLE.USER_NOT_FOUND'], [409, 'CONSOLE.SELF_CHANGE_REFUSED'], [503, 'CONSOLE.AUDIT_UNAVAILABLE'])
  resetPassword(@Param('email') email: string, @CurrentSession() session: RequestSession): Promise<UserWithPassword> {
    return this.users.resetPassword(session.user, pathEmail(email));
  }
}
