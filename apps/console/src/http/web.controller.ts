import { Controller, Get } from '@nestjs/common';
import { ProblemError } from '@settle/platform';

/**
 * Answers `/` when the web app is not built (`dist/apps/console/web` has no `index.html`).
 *
 * @throws ProblemError 503 `CONSOLE.WEB_NOT_BUILT`.
 */
@Controller()
export class WebNotBuiltController {
  @Get()
  root(): never {
    throw new ProblemError(
      503,
      'CONSOLE.WEB_NOT_BUILT',
      'Web app not built',
      'Build the console web app into dist/apps/console/web; the API under /api/v1 works meanwhile',
    );
  }
}
