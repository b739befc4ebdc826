import { Controller, Get, Inject, Req, Res } from '@nestjs/common';
import { ProblemError } from '@settle/platform';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { WEB_BUILT } from './tokens.js';

/**
 * The single-page app's own routes: every GET that is neither a file of the built web app
 * (served by `@fastify/static`, which wins over this catch-all), the API, `/health` nor
 * `/metrics` answers the app's `index.html`, so a deep link such as `/transactions/REF-1`
 * loads the app, which routes it. An unknown path under `/api/` stays a 404 problem.
 *
 * @throws ProblemError 503 `CONSOLE.WEB_NOT_BUILT` when the web app is not built
 *   (`dist/apps/console/web` has no `index.html`); 404 `REQUEST.NOT_FOUND` under `/api/` and for a
 *   missing file (a last path segment with an extension).
 */
@Controller()
export class WebController {
  constructor(@Inject(WEB_BUILT) private readonly webBuilt: boolean) {}

  @Get('*')
  page(@Req() request: FastifyRequest, @Res() reply: FastifyReply): FastifyReply {
    const path = request.url.split('?')[0] ?? '/';
    // The API's unknown paths, and missing files (a name with an extension), are not the app's routes.
    if (path === '/api' || path.startsWith('/api/') || /\.[A-Za-z0-9]+$/.test(path)) throw new ProblemError(404, 'REQUEST.NOT_FOUND', 'Not found');
    if (!this.webBuilt) {
      throw new ProblemError(
        503,
        'CONSOLE.WEB_NOT_BUILT',
        'Web app not built',
        'Build the console web app into dist/apps/console/web; the API under /api/v1 works meanwhile',
      );
    }
    return reply.type('text/html; charset=utf-8').sendFile('index.html');
  }
}
