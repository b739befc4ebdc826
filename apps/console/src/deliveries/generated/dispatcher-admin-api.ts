// Generated from docs/api/dispatcher-openapi.json by `npm run openapi` (scripts/docs/openapi-clients.ts): do not edit.
// test/openapi.unit.spec.ts fails when this file is not what the document gives.

export interface paths {
    "/v1/admin/endpoints": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Every endpoint
         * @description Never their secrets.
         */
        get: operations["EndpointsController_list"];
        put?: never;
        /**
         * Register an endpoint
         * @description Its URL (HTTPS; in production no private network), the event kinds it receives (every kind when left out) and a description. A signing secret is generated and kept in the dispatcher's vault; the answer shows it this once.
         */
        post: operations["EndpointsController_create"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/admin/endpoints/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One endpoint */
        get: operations["EndpointsController_get"];
        put?: never;
        post?: never;
        /**
         * Delete an endpoint
         * @description Nothing more is delivered to it; its delivery history stays.
         */
        delete: operations["EndpointsController_remove"];
        options?: never;
        head?: never;
        /**
         * Change an endpoint
         * @description Any of its URL, event kinds and description.
         */
        patch: operations["EndpointsController_update"];
        trace?: never;
    };
    "/v1/admin/endpoints/{id}/enable": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Enable an endpoint
         * @description The events it missed while disabled get a delivery, and its waiting deliveries are due at once (docs/delivery.md, "Disabled endpoints").
         */
        post: operations["EndpointsController_enable"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/admin/endpoints/{id}/disable": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Disable an endpoint
         * @description Nothing is attempted or recorded for it until it is enabled again, which records the deliveries it missed (`disabled_reason: admin`).
         */
        post: operations["EndpointsController_disable"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/admin/endpoints/{id}/rotate-secret": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Rotate an endpoint's signing secret
         * @description A new secret, shown this once; the previous one keeps signing too (both signatures are sent) for `previous_secret_valid_for_ms` milliseconds (default `DISPATCHER_SECRET_ROTATION_OVERLAP_MS`, 24 h; at most 7 days). The body may be left out.
         */
        post: operations["EndpointsController_rotate"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/admin/endpoints/{id}/recover": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Recover an endpoint's deliveries since a time
         * @description Every delivery to it that failed (was dead-lettered) since then, again, and the events received since then that it never had.
         */
        post: operations["EndpointsController_recover"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/admin/events/{eventId}/deliveries": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * An entitlement event's deliveries
         * @description Every delivery of the event, one per endpoint, with every attempt.
         */
        get: operations["DeliveriesController_attempts"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/admin/events/{eventId}/resend": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Resend an entitlement event
         * @description To one endpoint (a delivery is recorded if it had none), or, without a body, to every endpoint that had it. A new round of the retry schedule starts at once.
         */
        post: operations["DeliveriesController_resend"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/admin/deliveries": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Deliveries
         * @description Newest first, in keyset pages (pass `next_before` as `before`); `state=failed` lists the dead-lettered ones.
         */
        get: operations["DeliveriesController_list"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/receipts/{eventId}/proof": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A delivered event's proof
         * @description The latest signed checkpoint of the ledger and the event's inclusion proof in it: with the receipt delivered in the event's body (`receipt`) and Settle's published public key, it proves offline that this event is in the ledger Settle signed.
         */
        get: operations["ReceiptsController_proof"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: {
        Problem: {
            type: string;
            title: string;
            status: number;
            detail?: string;
            /** @description Stable machine-readable code (docs/errors.md) */
            code: string;
            errors?: {
                path: string;
                message: string;
            }[];
        } & {
            [key: string]: unknown;
        };
    };
    responses: never;
    parameters: never;
    requestBodies: never;
    headers: never;
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    EndpointsController_list: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The endpoints */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        endpoints: {
                            /** Format: uuid */
                            id: string;
                            /** @description Where signed entitlement events are POSTed */
                            url: string;
                            description: string | null;
                            /** @description The entitlement event kinds it receives */
                            event_kinds: ("subscription_started" | "subscription_renewed" | "subscription_revoked" | "subscription_reinstated")[];
                            enabled: boolean;
                            /** @description `admin`, `gone` (it answered 410) or `failing` (failures for `DISPATCHER_DISABLE_AFTER_MS`); `null` while enabled */
                            disabled_reason: string | null;
                            /**
                             * Format: date-time
                             * @description ISO 8601, UTC
                             */
                            disabled_at: string | null;
                            /**
                             * Format: date-time
                             * @description First failure of the current run of failed attempts; `null` after a success
                             */
                            failing_since: string | null;
                            /**
                             * Format: date-time
                             * @description Until when the secret before the last rotation still signs too
                             */
                            previous_secret_expires_at: string | null;
                            /**
                             * Format: date-time
                             * @description ISO 8601, UTC
                             */
                            created_at: string;
                            /**
                             * Format: date-time
                             * @description ISO 8601, UTC
                             */
                            updated_at: string;
                        }[];
                    };
                };
            };
            /** @description `AUTH.MISSING_API_KEY`, `AUTH.INVALID_API_KEY` */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `SERVICE.UNAVAILABLE` */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    EndpointsController_create: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    url: string;
                    event_kinds?: ("subscription_started" | "subscription_renewed" | "subscription_revoked" | "subscription_reinstated")[];
                    description?: string | null;
                };
            };
        };
        responses: {
            /** @description Registered, with its signing secret */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** Format: uuid */
                        id: string;
                        /** @description Where signed entitlement events are POSTed */
                        url: string;
                        description: string | null;
                        /** @description The entitlement event kinds it receives */
                        event_kinds: ("subscription_started" | "subscription_renewed" | "subscription_revoked" | "subscription_reinstated")[];
                        enabled: boolean;
                        /** @description `admin`, `gone` (it answered 410) or `failing` (failures for `DISPATCHER_DISABLE_AFTER_MS`); `null` while enabled */
                        disabled_reason: string | null;
                        /**
                         * Format: date-time
                         * @description ISO 8601, UTC
                         */
                        disabled_at: string | null;
                        /**
                         * Format: date-time
                         * @description First failure of the current run of failed attempts; `null` after a success
                         */
                        failing_since: string | null;
                        /**
                         * Format: date-time
                         * @description Until when the secret before the last rotation still signs too
                         */
                        previous_secret_expires_at: string | null;
                        /**
                         * Format: date-time
                         * @description ISO 8601, UTC
                         */
                        created_at: string;
                        /**
                         * Format: date-time
                         * @description ISO 8601, UTC
                         */
                        updated_at: string;
                        /** @description `whsec_...`: the Standard Webhooks signing secret, shown this once (kept only in the dispatcher's vault) */
                        secret: string;
                    };
                };
            };
            /** @description `REQUEST.MALFORMED_JSON`, `REQUEST.DUPLICATE_KEY`, `REQUEST.AMBIGUOUS_NUMBER`, `REQUEST.INVALID_CHARACTER`, `REQUEST.VALIDATION_FAILED`, `ENDPOINT.URL_NOT_ALLOWED` */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `AUTH.MISSING_API_KEY`, `AUTH.INVALID_API_KEY` */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `REQUEST.BODY_TOO_LARGE` */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `REQUEST.UNSUPPORTED_MEDIA_TYPE` */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `SERVICE.UNAVAILABLE` */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    EndpointsController_get: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The endpoint's id (UUID) */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The endpoint */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** Format: uuid */
                        id: string;
                        /** @description Where signed entitlement events are POSTed */
                        url: string;
                        description: string | null;
                        /** @description The entitlement event kinds it receives */
                        event_kinds: ("subscription_started" | "subscription_renewed" | "subscription_revoked" | "subscription_reinstated")[];
                        enabled: boolean;
                        /** @description `admin`, `gone` (it answered 410) or `failing` (failures for `DISPATCHER_DISABLE_AFTER_MS`); `null` while enabled */
                        disabled_reason: string | null;
                        /**
                         * Format: date-time
                         * @description ISO 8601, UTC
                         */
                        disabled_at: string | null;
                        /**
                         * Format: date-time
                         * @description First failure of the current run of failed attempts; `null` after a success
                         */
                        failing_since: string | null;
                        /**
                         * Format: date-time
                         * @description Until when the secret before the last rotation still signs too
                         */
                        previous_secret_expires_at: string | null;
                        /**
                         * Format: date-time
                         * @description ISO 8601, UTC
                         */
                        created_at: string;
                        /**
                         * Format: date-time
                         * @description ISO 8601, UTC
                         */
                        updated_at: string;
                    };
                };
            };
            /** @description `AUTH.MISSING_API_KEY`, `AUTH.INVALID_API_KEY` */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `ENDPOINT.NOT_FOUND` */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `SERVICE.UNAVAILABLE` */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    EndpointsController_remove: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The endpoint's id (UUID) */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description `AUTH.MISSING_API_KEY`, `AUTH.INVALID_API_KEY` */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `ENDPOINT.NOT_FOUND` */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `SERVICE.UNAVAILABLE` */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    EndpointsController_update: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The endpoint's id (UUID) */
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    url?: string;
                    event_kinds?: ("subscription_started" | "subscription_renewed" | "subscription_revoked" | "subscription_reinstated")[];
                    description?: string | null;
                };
            };
        };
        responses: {
            /** @description The endpoint as it is now */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** Format: uuid */
                        id: string;
                        /** @description Where signed entitlement events are POSTed */
                        url: string;
                        description: string | null;
                        /** @description The entitlement event kinds it receives */
                        event_kinds: ("subscription_started" | "subscription_renewed" | "subscription_revoked" | "subscription_reinstated")[];
                        enabled: boolean;
                        /** @description `admin`, `gone` (it answered 410) or `failing` (failures for `DISPATCHER_DISABLE_AFTER_MS`); `null` while enabled */
                        disabled_reason: string | null;
                        /**
                         * Format: date-time
                         * @description ISO 8601, UTC
                         */
                        disabled_at: string | null;
                        /**
                         * Format: date-time
                         * @description First failure of the current run of failed attempts; `null` after a success
                         */
                        failing_since: string | null;
                        /**
                         * Format: date-time
                         * @description Until when the secret before the last rotation still signs too
                         */
                        previous_secret_expires_at: string | null;
                        /**
                         * Format: date-time
                         * @description ISO 8601, UTC
                         */
                        created_at: string;
                        /**
                         * Format: date-time
                         * @description ISO 8601, UTC
                         */
                        updated_at: string;
                    };
                };
            };
            /** @description `REQUEST.MALFORMED_JSON`, `REQUEST.DUPLICATE_KEY`, `REQUEST.AMBIGUOUS_NUMBER`, `REQUEST.INVALID_CHARACTER`, `REQUEST.VALIDATION_FAILED`, `ENDPOINT.URL_NOT_ALLOWED` */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `AUTH.MISSING_API_KEY`, `AUTH.INVALID_API_KEY` */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `ENDPOINT.NOT_FOUND` */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `REQUEST.BODY_TOO_LARGE` */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `REQUEST.UNSUPPORTED_MEDIA_TYPE` */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `SERVICE.UNAVAILABLE` */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    EndpointsController_enable: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The endpoint's id (UUID) */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The endpoint as it is now */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** Format: uuid */
                        id: string;
                        /** @description Where signed entitlement events are POSTed */
                        url: string;
                        description: string | null;
                        /** @description The entitlement event kinds it receives */
                        event_kinds: ("subscription_started" | "subscription_renewed" | "subscription_revoked" | "subscription_reinstated")[];
                        enabled: boolean;
                        /** @description `admin`, `gone` (it answered 410) or `failing` (failures for `DISPATCHER_DISABLE_AFTER_MS`); `null` while enabled */
                        disabled_reason: string | null;
                        /**
                         * Format: date-time
                         * @description ISO 8601, UTC
                         */
                        disabled_at: string | null;
                        /**
                         * Format: date-time
                         * @description First failure of the current run of failed attempts; `null` after a success
                         */
                        failing_since: string | null;
                        /**
                         * Format: date-time
                         * @description Until when the secret before the last rotation still signs too
                         */
                        previous_secret_expires_at: string | null;
                        /**
                         * Format: date-time
                         * @description ISO 8601, UTC
                         */
                        created_at: string;
                        /**
                         * Format: date-time
                         * @description ISO 8601, UTC
                         */
                        updated_at: string;
                    };
                };
            };
            /** @description `AUTH.MISSING_API_KEY`, `AUTH.INVALID_API_KEY` */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `ENDPOINT.NOT_FOUND` */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `SERVICE.UNAVAILABLE` */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    EndpointsController_disable: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The endpoint's id (UUID) */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The endpoint as it is now */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** Format: uuid */
                        id: string;
                        /** @description Where signed entitlement events are POSTed */
                        url: string;
                        description: string | null;
                        /** @description The entitlement event kinds it receives */
                        event_kinds: ("subscription_started" | "subscription_renewed" | "subscription_revoked" | "subscription_reinstated")[];
                        enabled: boolean;
                        /** @description `admin`, `gone` (it answered 410) or `failing` (failures for `DISPATCHER_DISABLE_AFTER_MS`); `null` while enabled */
                        disabled_reason: string | null;
                        /**
                         * Format: date-time
                         * @description ISO 8601, UTC
                         */
                        disabled_at: string | null;
                        /**
                         * Format: date-time
                         * @description First failure of the current run of failed attempts; `null` after a success
                         */
                        failing_since: string | null;
                        /**
                         * Format: date-time
                         * @description Until when the secret before the last rotation still signs too
                         */
                        previous_secret_expires_at: string | null;
                        /**
                         * Format: date-time
                         * @description ISO 8601, UTC
                         */
                        created_at: string;
                        /**
                         * Format: date-time
                         * @description ISO 8601, UTC
                         */
                        updated_at: string;
                    };
                };
            };
            /** @description `AUTH.MISSING_API_KEY`, `AUTH.INVALID_API_KEY` */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `ENDPOINT.NOT_FOUND` */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `SERVICE.UNAVAILABLE` */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    EndpointsController_rotate: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The endpoint's id (UUID) */
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    previous_secret_valid_for_ms?: number;
                } | null;
            };
        };
        responses: {
            /** @description The endpoint with its new signing secret */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** Format: uuid */
                        id: string;
                        /** @description Where signed entitlement events are POSTed */
                        url: string;
                        description: string | null;
                        /** @description The entitlement event kinds it receives */
                        event_kinds: ("subscription_started" | "subscription_renewed" | "subscription_revoked" | "subscription_reinstated")[];
                        enabled: boolean;
                        /** @description `admin`, `gone` (it answered 410) or `failing` (failures for `DISPATCHER_DISABLE_AFTER_MS`); `null` while enabled */
                        disabled_reason: string | null;
                        /**
                         * Format: date-time
                         * @description ISO 8601, UTC
                         */
                        disabled_at: string | null;
                        /**
                         * Format: date-time
                         * @description First failure of the current run of failed attempts; `null` after a success
                         */
                        failing_since: string | null;
                        /**
                         * Format: date-time
                         * @description Until when the secret before the last rotation still signs too
                         */
                        previous_secret_expires_at: string | null;
                        /**
                         * Format: date-time
                         * @description ISO 8601, UTC
                         */
                        created_at: string;
                        /**
                         * Format: date-time
                         * @description ISO 8601, UTC
                         */
                        updated_at: string;
                        /** @description `whsec_...`: the Standard Webhooks signing secret, shown this once (kept only in the dispatcher's vault) */
                        secret: string;
                    };
                };
            };
            /** @description `REQUEST.MALFORMED_JSON`, `REQUEST.DUPLICATE_KEY`, `REQUEST.AMBIGUOUS_NUMBER`, `REQUEST.INVALID_CHARACTER`, `REQUEST.VALIDATION_FAILED` */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `AUTH.MISSING_API_KEY`, `AUTH.INVALID_API_KEY` */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `ENDPOINT.NOT_FOUND` */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `REQUEST.BODY_TOO_LARGE` */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `REQUEST.UNSUPPORTED_MEDIA_TYPE` */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `SERVICE.UNAVAILABLE` */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    EndpointsController_recover: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The endpoint's id (UUID) */
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** Format: date-time */
                    since: string;
                };
            };
        };
        responses: {
            /** @description Scheduled */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Deliveries put back in the schedule */
                        requeued: number;
                    };
                };
            };
            /** @description `REQUEST.MALFORMED_JSON`, `REQUEST.DUPLICATE_KEY`, `REQUEST.AMBIGUOUS_NUMBER`, `REQUEST.INVALID_CHARACTER`, `REQUEST.VALIDATION_FAILED` */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `AUTH.MISSING_API_KEY`, `AUTH.INVALID_API_KEY` */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `ENDPOINT.NOT_FOUND` */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `REQUEST.BODY_TOO_LARGE` */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `REQUEST.UNSUPPORTED_MEDIA_TYPE` */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `SERVICE.UNAVAILABLE` */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    DeliveriesController_attempts: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The entitlement event's id (UUID, its `event_id`) */
                eventId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The deliveries */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** Format: uuid */
                        event_id: string;
                        deliveries: {
                            delivery_id: number;
                            /**
                             * Format: uuid
                             * @description The entitlement event's id: the receiver's idempotency key
                             */
                            event_id: string;
                            /** @enum {string} */
                            event: "subscription_started" | "subscription_renewed" | "subscription_revoked" | "subscription_reinstated";
                            user_id: string;
                            /** Format: uuid */
                            endpoint_id: string;
                            /**
                             * @description `failed`: dead-lettered after every retry
                             * @enum {string}
                             */
                            state: "pending" | "delivered" | "failed" | "cancelled";
                            /** @description Delivery attempts so far */
                            attempts: number;
                            /**
                             * Format: date-time
                             * @description While `pending`: when the next attempt is due
                             */
                            next_attempt_at: string | null;
                            /**
                             * Format: date-time
                             * @description ISO 8601, UTC
                             */
                            delivered_at: string | null;
                            /** @description The endpoint's last HTTP status; `null` for none (a time-out, a refused connection) */
                            last_status: number | null;
                            last_error: string | null;
                            /**
                             * Format: date-time
                             * @description ISO 8601, UTC
                             */
                            recorded_at: string;
                            attempt_log: {
                                attempt: number;
                                /**
                                 * Format: date-time
                                 * @description ISO 8601, UTC
                                 */
                                started_at: string;
                                /** @description Milliseconds */
                                latency_ms: number;
                                /** @description The endpoint's HTTP status; `null` for none */
                                status: number | null;
                                /** @description `delivered`, `failed`, `gone` or `throttled` */
                                outcome: string;
                                error: string | null;
                                /** @description The start of the endpoint's answer */
                                response_excerpt: string | null;
                                /**
                                 * Format: date-time
                                 * @description ISO 8601, UTC
                                 */
                                next_attempt_at: string | null;
                            }[];
                        }[];
                    };
                };
            };
            /** @description `AUTH.MISSING_API_KEY`, `AUTH.INVALID_API_KEY` */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `EVENT.NOT_FOUND` */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `SERVICE.UNAVAILABLE` */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    DeliveriesController_resend: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The entitlement event's id (UUID, its `event_id`) */
                eventId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** Format: uuid */
                    endpoint_id?: string;
                } | null;
            };
        };
        responses: {
            /** @description Scheduled */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Deliveries put back in the schedule */
                        requeued: number;
                    };
                };
            };
            /** @description `REQUEST.MALFORMED_JSON`, `REQUEST.DUPLICATE_KEY`, `REQUEST.AMBIGUOUS_NUMBER`, `REQUEST.INVALID_CHARACTER`, `REQUEST.VALIDATION_FAILED` */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `AUTH.MISSING_API_KEY`, `AUTH.INVALID_API_KEY` */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `EVENT.NOT_FOUND`, `ENDPOINT.NOT_FOUND` */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `REQUEST.BODY_TOO_LARGE` */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `REQUEST.UNSUPPORTED_MEDIA_TYPE` */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `SERVICE.UNAVAILABLE` */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    DeliveriesController_list: {
        parameters: {
            query?: {
                state?: "pending" | "delivered" | "failed" | "cancelled";
                endpoint_id?: string;
                before?: number;
                limit?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description One page */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        deliveries: {
                            delivery_id: number;
                            /**
                             * Format: uuid
                             * @description The entitlement event's id: the receiver's idempotency key
                             */
                            event_id: string;
                            /** @enum {string} */
                            event: "subscription_started" | "subscription_renewed" | "subscription_revoked" | "subscription_reinstated";
                            user_id: string;
                            /** Format: uuid */
                            endpoint_id: string;
                            /**
                             * @description `failed`: dead-lettered after every retry
                             * @enum {string}
                             */
                            state: "pending" | "delivered" | "failed" | "cancelled";
                            /** @description Delivery attempts so far */
                            attempts: number;
                            /**
                             * Format: date-time
                             * @description While `pending`: when the next attempt is due
                             */
                            next_attempt_at: string | null;
                            /**
                             * Format: date-time
                             * @description ISO 8601, UTC
                             */
                            delivered_at: string | null;
                            /** @description The endpoint's last HTTP status; `null` for none (a time-out, a refused connection) */
                            last_status: number | null;
                            last_error: string | null;
                            /**
                             * Format: date-time
                             * @description ISO 8601, UTC
                             */
                            recorded_at: string;
                        }[];
                        /** @description Pass as `before` for the next page; `null` on the last */
                        next_before: number | null;
                    };
                };
            };
            /** @description `REQUEST.VALIDATION_FAILED` */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `AUTH.MISSING_API_KEY`, `AUTH.INVALID_API_KEY` */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `SERVICE.UNAVAILABLE` */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    ReceiptsController_proof: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The delivered event's `event_id` (UUID) */
                eventId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The proof */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** Format: uuid */
                        event_id: string;
                        receipt: {
                            /** @description The event's global position in the ledger */
                            ledger_position: number;
                            /** @description Its stream hash, 64 hex digits */
                            ledger_hash: string;
                        };
                        /** @description The signed checkpoint (a signed note: origin, size, root, `global` and `time` lines, a blank line, signatures) */
                        checkpoint: string;
                        /** @description The checkpoint's size: the tree the proof is in */
                        tree_size: number;
                        /** @description `ledger_position - 1` */
                        leaf_index: number;
                        /** @description RFC 9162 inclusion proof, 64-hex-digit hashes from the leaf up */
                        inclusion_proof: string[];
                    };
                };
            };
            /** @description `AUTH.MISSING_API_KEY`, `AUTH.INVALID_API_KEY` */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `RECEIPT.UNKNOWN_EVENT`, `RECEIPT.NOT_COVERED_YET` */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `SERVICE.UNAVAILABLE` */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
}
type FlattenedDeepRequired<T> = {
    [K in keyof T]-?: FlattenedDeepRequired<T[K] extends unknown[] | undefined | null ? Extract<T[K], unknown[]>[number] : T[K]>;
};
type ReadonlyArray<T> = [
    Exclude<T, undefined>
] extends [
    unknown[]
] ? Readonly<Exclude<T, undefined>> : Readonly<Exclude<T, undefined>[]>;
export const pathsV1AdminEndpointsGetResponses200ContentApplicationJsonEndpointsEvent_kindsValues: ReadonlyArray<FlattenedDeepRequired<paths>["/v1/admin/endpoints"]["get"]["responses"]["200"]["content"]["application/json"]["endpoints"]["event_kinds"]> = ["subscription_started", "subscription_renewed", "subscription_revoked", "subscription_reinstated"];
export const pathsV1AdminEndpointsPostRequestBodyContentApplicationJsonEvent_kindsValues: ReadonlyArray<FlattenedDeepRequired<paths>["/v1/admin/endpoints"]["post"]["requestBody"]["content"]["application/json"]["event_kinds"]> = ["subscription_started", "subscription_renewed", "subscription_revoked", "subscription_reinstated"];
export const pathsV1AdminEndpointsPostResponses201ContentApplicationJsonEvent_kindsValues: ReadonlyArray<FlattenedDeepRequired<paths>["/v1/admin/endpoints"]["post"]["responses"]["201"]["content"]["application/json"]["event_kinds"]> = ["subscription_started", "subscription_renewed", "subscription_revoked", "subscription_reinstated"];
export const pathsV1AdminEndpointsIdGetResponses200ContentApplicationJsonEvent_kindsValues: ReadonlyArray<FlattenedDeepRequired<paths>["/v1/admin/endpoints/{id}"]["get"]["responses"]["200"]["content"]["application/json"]["event_kinds"]> = ["subscription_started", "subscription_renewed", "subscription_revoked", "subscription_reinstated"];
export const pathsV1AdminEndpointsIdPatchRequestBodyContentApplicationJsonEvent_kindsValues: ReadonlyArray<FlattenedDeepRequired<paths>["/v1/admin/endpoints/{id}"]["patch"]["requestBody"]["content"]["application/json"]["event_kinds"]> = ["subscription_started", "subscription_renewed", "subscription_revoked", "subscription_reinstated"];
export const pathsV1AdminEndpointsIdPatchResponses200ContentApplicationJsonEvent_kindsValues: ReadonlyArray<FlattenedDeepRequired<paths>["/v1/admin/endpoints/{id}"]["patch"]["responses"]["200"]["content"]["application/json"]["event_kinds"]> = ["subscription_started", "subscription_renewed", "subscription_revoked", "subscription_reinstated"];
export const pathsV1AdminEndpointsIdEnablePostResponses200ContentApplicationJsonEvent_kindsValues: ReadonlyArray<FlattenedDeepRequired<paths>["/v1/admin/endpoints/{id}/enable"]["post"]["responses"]["200"]["content"]["application/json"]["event_kinds"]> = ["subscription_started", "subscription_renewed", "subscription_revoked", "subscription_reinstated"];
export const pathsV1AdminEndpointsIdDisablePostResponses200ContentApplicationJsonEvent_kindsValues: ReadonlyArray<FlattenedDeepRequired<paths>["/v1/admin/endpoints/{id}/disable"]["post"]["responses"]["200"]["content"]["application/json"]["event_kinds"]> = ["subscription_started", "subscription_renewed", "subscription_revoked", "subscription_reinstated"];
export const pathsV1AdminEndpointsIdRotateSecretPostResponses200ContentApplicationJsonEvent_kindsValues: ReadonlyArray<FlattenedDeepRequired<paths>["/v1/admin/endpoints/{id}/rotate-secret"]["post"]["responses"]["200"]["content"]["application/json"]["event_kinds"]> = ["subscription_started", "subscription_renewed", "subscription_revoked", "subscription_reinstated"];
export const pathsV1AdminEventsEventIdDeliveriesGetResponses200ContentApplicationJsonDeliveriesEventValues: ReadonlyArray<FlattenedDeepRequired<paths>["/v1/admin/events/{eventId}/deliveries"]["get"]["responses"]["200"]["content"]["application/json"]["deliveries"]["event"]> = ["subscription_started", "subscription_renewed", "subscription_revoked", "subscription_reinstated"];
export const pathsV1AdminEventsEventIdDeliveriesGetResponses200ContentApplicationJsonDeliveriesStateValues: ReadonlyArray<FlattenedDeepRequired<paths>["/v1/admin/events/{eventId}/deliveries"]["get"]["responses"]["200"]["content"]["application/json"]["deliveries"]["state"]> = ["pending", "delivered", "failed", "cancelled"];
export const pathsV1AdminDeliveriesGetParametersQueryStateValues: ReadonlyArray<FlattenedDeepRequired<paths>["/v1/admin/deliveries"]["get"]["parameters"]["query"]["state"]> = ["pending", "delivered", "failed", "cancelled"];
export const pathsV1AdminDeliveriesGetResponses200ContentApplicationJsonDeliveriesEventValues: ReadonlyArray<FlattenedDeepRequired<paths>["/v1/admin/deliveries"]["get"]["responses"]["200"]["content"]["application/json"]["deliveries"]["event"]> = ["subscription_started", "subscription_renewed", "subscription_revoked", "subscription_reinstated"];
export const pathsV1AdminDeliveriesGetResponses200ContentApplicationJsonDeliveriesStateValues: ReadonlyArray<FlattenedDeepRequired<paths>["/v1/admin/deliveries"]["get"]["responses"]["200"]["content"]["application/json"]["deliveries"]["state"]> = ["pending", "delivered", "failed", "cancelled"];
