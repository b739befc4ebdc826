import { Body, Controller, Get, HttpCode, Inject, Param, Patch, Post, UseGuards } from '@nestjs/common';
import { parseBody } from '@settle/http';
import type { UserAdminService, UserView, UserWithPassword } from '../users/user-admin.service.js';
import { createUserBody, pathEmail, updateUserBody } from './requests.js';
import { CurrentSession, MinRole, SessionGuard, type RequestSession } from './session.guard.js';
import { USER_ADMIN } from './tokens.js';

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
@Controller('api/v1/users')
@UseGuards(SessionGuard)
@MinRole('admin')
export class UsersController {
  constructor(@Inject(USER_ADMIN) private readonly users: UserAdminService) {}

  @Get()
  async list(): Promise<{ items: UserView[] }> {
    return { items: await this.users.list() };
  }

  @Post()
  @HttpCode(201)
  create(@Body() body: unknown, @CurrentSession() session: RequestSession): Promise<UserWithPassword> {
    const input = parseBody(createUserBody, body);
    return this.users.create(session.user, input.email, input.role);
  }

  @Patch(':email')
  update(@Param('email') email: string, @Body() body: unknown, @CurrentSession() session: RequestSession): Promise<UserView> {
    const target = pathEmail(email);
    const input = parseBody(updateUserBody, body);
    return this.users.update(session.user, target, input);
  }

  @Post(':email/password')
  @HttpCode(200)
  resetPassword(@Param('email') email: string, @CurrentSession() session: RequestSession): Promise<UserWithPassword> {
    return this.users.resetPassword(session.user, pathEmail(email));
  }
}
