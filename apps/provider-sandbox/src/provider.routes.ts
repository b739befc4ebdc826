import { Catch, NotFoundException, type ArgumentsHost } from '@nestjs/common';
import { BaseExceptionFilter } from '@nestjs/core';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AnyProviderSimulation, ProviderApi } from './simulation.js';

/** Whether `path` (no query) is one of `roots` or goes on below one with `/`. */
export function underRoots(path: string, roots: readonly string[]): boolean {
  return roots.some((root) => path === root || path.startsWith(`${root}/`));
}

/** The API of the simulation whose roots hold `path`, if any. */
export function providerApiAt(path: string, simulations: readonly AnyProviderSimulation[]): ProviderApi | undefined {
  return simulations.find((simulation) => simulation.api && underRoots(path, simulation.api.roots))?.api;
}

/**
 * A request URL as the sandbox routes it: repeated slashes read as one when the path so read is
 * under the roots of a provider whose API tolerates them (Flutterwave's Node client asks for
 * `//v3/transactions`); any other URL unchanged. For Fastify's `rewriteUrl`.
 */
export function rewriteProviderUrl(url: string, simulations: readonly AnyProviderSimulation[]): string {
  const queryAt = url.indexOf('?');
  const path = queryAt < 0 ? url : url.slice(0, queryAt);
  if (!path.includes('//')) return url;
  const collapsed = path.replace(/\/{2,}/g, '/');
  const api = providerApiAt(collapsed, simulations);
  return api?.collapseSlashes ? `${collapsed}${queryAt < 0 ? '' : url.slice(queryAt)}` : url;
}

/**
 * Answers a request that no route matched under a provider's API roots as that provider does
 * (`ProviderApi.unknownRoute`: Stripe's `invalid_request_error`, Paystack's `status: false`,
 * Flutterwave's `status: "error"`), so that the providers' own clients read it as they read the
 * provider's; other not-found exceptions, and unknown paths outside the providers' roots, as Nest does.
 */
@Catch(NotFoundException)
export class UnknownRouteFilter extends BaseExceptionFilter {
  constructor(
    private readonly simulations: readonly AnyProviderSimulation[],
    ...base: ConstructorParameters<typeof BaseExceptionFilter>
  ) {
    super(...base);
  }

  override catch(exception: NotFoundException, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const request = http.getRequest<FastifyRequest>();
    // Nest's not-found handler throws NotFoundException for a request that matched no route, which
    // Fastify marks by leaving `routeOptions.url` unset; a controller's own 404s keep their route.
    if (request.routeOptions?.url === undefined) {
      const path = request.url.split('?', 1)[0] ?? request.url;
      const api = providerApiAt(path, this.simulations);
      if (api) {
        const answer = api.unknownRoute(request.method, path);
        void http.getResponse<FastifyReply>().status(answer.status).send(answer.body);
        return;
      }
    }
    super.catch(exception, host);
  }
}
