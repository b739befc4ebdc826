// Generated from docs/api/console-openapi.json by `npm run openapi` (scripts/docs/openapi-clients.ts): do not edit.
// test/openapi.unit.spec.ts fails when this file is not what the document gives.

export interface paths {
    "/api/v1/session": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The current session
         * @description The signed-in user and the CSRF token, read afresh.
         */
        get: operations["SessionController_current"];
        put?: never;
        /**
         * Sign in
         * @description Sets the session cookie; answers the user and the CSRF token. Five failures within 15 minutes lock the email.
         */
        post: operations["SessionController_signIn"];
        /**
         * Sign out
         * @description Deletes the session and clears the cookie.
         */
        delete: operations["SessionController_signOut"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/transactions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List and search transactions
         * @description `q` matches a reference by prefix, or exactly a user id, an email (case-insensitive) or a phone. Newest first, keyset pages.
         */
        get: operations["TransactionsController_list"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/transactions/{reference}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * One transaction
         * @description Its checks, ledger timeline, the sweeper's watch, its entitlement events and their delivery attempts.
         */
        get: operations["TransactionsController_detail"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/transactions/{reference}/reconcile": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Reconcile now (operator or admin)
         * @description The spec's fourth trigger: a fresh verification through ingestion. Recorded in the ledger with the actor before it runs.
         */
        post: operations["TransactionsController_reconcile"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/queues/held-in-review": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Held in review
         * @description RECOVERING with entitlement HELD_IN_REVIEW, oldest first, with the sweeper's next re-check.
         */
        get: operations["QueuesController_heldInReview"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/queues/manual-review": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Manual review
         * @description MANUAL_REVIEW, oldest first, with why.
         */
        get: operations["QueuesController_manualReview"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/queues/state-mismatch": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * State Mismatch
         * @description STATE_MISMATCH, newest first: each failed checklist point, expected against observed, and the provider field the observed value came from.
         */
        get: operations["QueuesController_stateMismatch"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/queues/disputes": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Disputes
         * @description Settled payments with a dispute (a chargeback) still open at the provider, newest first, read from the ledger: the grant stays in force until the dispute is decided unless the policy suspends it.
         */
        get: operations["QueuesController_disputes"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/queues/unmatched-payments": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Unmatched payments
         * @description Payments a provider confirmed for a reference with no checkout, still open, oldest first: nothing was granted. Amounts in minor units, `null` when unverified (M-Pesa).
         */
        get: operations["QueuesController_unmatchedPayments"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/overview": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Overview of the book
         * @description Counts per state and entitlement status, the review queues, dead-lettered deliveries and messages, the workers' consumer lag and the ledger's hash-chain status. Kafka figures answer `unavailable` rather than failing the page.
         */
        get: operations["OverviewController_overview"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/endpoints": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Customer endpoints
         * @description Never their signing secrets; disabled endpoints first.
         */
        get: operations["DeliveriesController_endpoints"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/endpoints/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * One endpoint
         * @description With its 20 newest deliveries.
         */
        get: operations["DeliveriesController_endpoint"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/deliveries": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Deliveries
         * @description Newest first, keyset pages; `state=failed` lists the dead-lettered ones.
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
    "/api/v1/events/{eventId}/deliveries": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * An entitlement event's delivery attempts
         * @description Every delivery of the event with every attempt.
         */
        get: operations["DeliveriesController_eventDeliveries"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/events/{eventId}/resend": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Resend an entitlement event (operator or admin)
         * @description To one endpoint, or (no body) to every endpoint that had it. Recorded in the ledger with the actor first.
         */
        post: operations["DeliveriesController_resend"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/endpoints/{id}/recover": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Recover an endpoint since a time (operator or admin)
         * @description Its deliveries dead-lettered since then again, and the events since then it never had; at most 30 days back. Recorded in the ledger first.
         */
        post: operations["DeliveriesController_recover"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/endpoints/{id}/enable": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Re-enable an endpoint (admin)
         * @description Its waiting deliveries fall due at once. Recorded in the ledger with the actor first.
         */
        post: operations["DeliveriesController_enable"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/endpoints/{id}/disable": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Disable an endpoint (admin)
         * @description Deliveries to it wait until it is enabled again. Recorded in the ledger with the actor first.
         */
        post: operations["DeliveriesController_disable"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/reconciliation/runs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Reconciliation runs
         * @description Runs newest first, scheduled and on demand, with their pages and counts per class.
         */
        get: operations["ReconciliationController_runs"];
        put?: never;
        /**
         * Start a reconciliation run (operator or admin)
         * @description Asks ingestion to have the verifier page through the provider's own list for the window and compare each payment with Settle's records; the operator is recorded as the run's `startedBy`, and the request in the ledger with its actor first.
         */
        post: operations["ReconciliationController_startRun"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/reconciliation/runs/{runId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * One reconciliation run
         * @description Where the run stands: pages read, counts per class, exceptions raised and resolved, why it failed.
         */
        get: operations["ReconciliationController_run"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/reconciliation/exceptions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Reconciliation exceptions
         * @description Exceptions newest first, filtered, each with its evidence (the provider's value beside Settle's) and its resolution; `format=csv` downloads every match as CSV (the columns of ingestion's export).
         */
        get: operations["ReconciliationController_exceptions"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/reconciliation/exceptions/{exceptionId}/resolve": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Resolve a reconciliation exception with a reason (operator or admin)
         * @description Through ingestion: the verifier closes it and the ledger records `ReconciliationExceptionResolved` with the reason and the operator as `resolved_by`. Recorded in the ledger with the actor first.
         */
        post: operations["ReconciliationController_resolve"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/audit": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The audit trail (admin)
         * @description Every admin action recorded in the ledger with its actor and outcome, newest first.
         */
        get: operations["AuditController_list"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/users": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List users (admin)
         * @description Every console user by email, with role, disabled, created and last sign-in.
         */
        get: operations["UsersController_list"];
        put?: never;
        /**
         * Add a user (admin)
         * @description Generates a password, answered this once. Recorded in the ledger with the actor first.
         */
        post: operations["UsersController_create"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/users/{email}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /**
         * Change a role, disable or enable (admin)
         * @description Disabling ends the user's sessions at once. Recorded in the ledger with the actor first.
         */
        patch: operations["UsersController_update"];
        trace?: never;
    };
    "/api/v1/users/{email}/password": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Reset a password (admin)
         * @description Generates a new password, answered this once; ends the user's sessions.
         */
        post: operations["UsersController_resetPassword"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/unmatched-payments/{reference}/match-proposals": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Propose matching an unmatched payment (operator or admin)
         * @description The checkout's terms from your own source (amount in minor units, currency, user, customer, entitlement, access period). A second admin must approve before the checkout is registered and verified against the provider's answer.
         */
        post: operations["ApprovalsController_proposeMatch"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/transactions/{reference}/accept-as-paid-proposals": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Propose accepting a State Mismatch as paid (operator or admin)
         * @description Why, in a note the approver reads. A second admin must approve; the ledger then records `SettledByOverride` naming both people and the difference accepted, and grants the entitlement (docs/state-machine.md, "Resolving a State Mismatch").
         */
        post: operations["ApprovalsController_proposeAcceptAsPaid"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/proposals": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Proposals waiting for approval
         * @description Oldest first; expired ones are left out. A customer’s email and phone are shown opened to operators and admins, masked to viewers.
         */
        get: operations["ApprovalsController_pending"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/proposals/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * One proposal
         * @description As it stands now: a pending one past its expiry reads `expired`. A customer’s email and phone are shown opened to operators and admins, masked to viewers.
         */
        get: operations["ApprovalsController_one"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/proposals/{id}/approve": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Approve a proposal (admin, not its proposer)
         * @description Runs the action with the terms as proposed; if it fails, the proposal stays pending. Recorded in the ledger with the approver first.
         */
        post: operations["ApprovalsController_approve"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/proposals/{id}/reject": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Reject or withdraw a proposal
         * @description An admin rejects, or the proposer withdraws, with a reason. The action never runs.
         */
        post: operations["ApprovalsController_reject"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/privacy/erasures": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Propose erasing a data subject (operator or admin)
         * @description A merchant's user (`user_id`) or a customer (email or phone), and why (a ticket, the request's date; never the subject's identifier: a reason that contains it is refused, 400 `PRIVACY.REASON_NAMES_SUBJECT`). A second admin must approve; the subject's keys are then destroyed, the plaintext copies cleared and `SubjectErased` recorded naming both people. The proposal names the subject sealed: the answers show it opened (`target.id` `user:<id>` or `customer:<id>`), `erased` once done.
         */
        post: operations["PrivacyController_proposeErasure"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/unmatched-payments/{reference}/close": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Close an unmatched payment with a reason (operator or admin)
         * @description Refunded outside Settle, a test payment, or not ours. Nothing is granted or refunded by Settle. Recorded in the ledger with the actor first.
         */
        post: operations["UnmatchedPaymentsController_close"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/transactions/{reference}/close-refund-due": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Close a State Mismatch: refund due (admin)
         * @description The payment is to be refunded from the provider: the exception stays open until the provider shows the captured money returned, then closes by itself. Settle refunds nothing. Recorded in the ledger with the actor first.
         */
        post: operations["StateMismatchController_closeRefundDue"];
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
    SessionController_current: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The session */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        user: {
                            email: string;
                            /** @enum {string} */
                            role: "viewer" | "operator" | "admin";
                        };
                        /** @description Send it in `x-csrf-token` with every POST, PUT, PATCH and DELETE */
                        csrfToken: string;
                    };
                };
            };
            /** @description `CONSOLE.UNAUTHENTICATED` */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    SessionController_signIn: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    email: string;
                    password: string;
                };
            };
        };
        responses: {
            /** @description Signed in */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        user: {
                            email: string;
                            /** @enum {string} */
                            role: "viewer" | "operator" | "admin";
                        };
                        /** @description Send it in `x-csrf-token` with every POST, PUT, PATCH and DELETE */
                        csrfToken: string;
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
            /** @description `CONSOLE.INVALID_CREDENTIALS` */
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
            /** @description `CONSOLE.LOGIN_LOCKED` */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    SessionController_signOut: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Signed out */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description `CONSOLE.UNAUTHENTICATED` */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `CONSOLE.CSRF_REJECTED` */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    TransactionsController_list: {
        parameters: {
            query?: {
                q?: string;
                provider?: "paystack" | "stripe" | "flutterwave" | "mpesa";
                state?: "PENDING" | "RECOVERING" | "MANUAL_REVIEW" | "SETTLED_CONSENSUS" | "FAILED_DECLINED" | "STATE_MISMATCH";
                entitlement?: "LOCKED" | "UNLOCKED" | "HELD_IN_REVIEW";
                from?: string;
                to?: string;
                cursor?: string;
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
                        items: {
                            reference: string;
                            /** @enum {string} */
                            provider: "paystack" | "stripe" | "flutterwave" | "mpesa";
                            /** @enum {string} */
                            state: "PENDING" | "RECOVERING" | "MANUAL_REVIEW" | "SETTLED_CONSENSUS" | "FAILED_DECLINED" | "STATE_MISMATCH";
                            /** @enum {string} */
                            entitlementStatus: "LOCKED" | "UNLOCKED" | "HELD_IN_REVIEW";
                            /** @description Integer, minor units of `currency` */
                            amountMinor: number;
                            currency: string;
                            userId: string | null;
                            email: string | null;
                            /**
                             * Format: date-time
                             * @description ISO 8601, UTC
                             */
                            updatedAt: string;
                        }[];
                        /** @description Cursor of the next page (pass it as `cursor`); `null` on the last page */
                        nextCursor: string | null;
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
            /** @description `CONSOLE.UNAUTHENTICATED` */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `READ_MODEL.NOT_READY` */
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
    TransactionsController_detail: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The checkout reference */
                reference: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The transaction */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        transaction: {
                            reference: string;
                            /** @enum {string} */
                            provider: "paystack" | "stripe" | "flutterwave" | "mpesa";
                            /** @enum {string} */
                            state: "PENDING" | "RECOVERING" | "MANUAL_REVIEW" | "SETTLED_CONSENSUS" | "FAILED_DECLINED" | "STATE_MISMATCH";
                            /** @enum {string} */
                            entitlementStatus: "LOCKED" | "UNLOCKED" | "HELD_IN_REVIEW";
                            /** @description Integer, minor units of `currency` */
                            amountMinor: number;
                            currency: string;
                            userId: string | null;
                            email: string | null;
                            /**
                             * Format: date-time
                             * @description ISO 8601, UTC
                             */
                            updatedAt: string;
                            entitlement: string | null;
                            accessPeriod: string | null;
                            /** @description The four consensus checks of the last decision (docs/spec.md, section 3) */
                            checks: {
                                check: string;
                                passed: boolean;
                                code: string | null;
                                expected: string;
                                observed: string;
                                /** @description The provider answer's field the observed value was read from */
                                providerField: string | null;
                            }[] | null;
                            lastVerdict: string | null;
                            lastTrigger: string | null;
                            /**
                             * @description What happened to the money after the payment settled (docs/state-machine.md, "The money after settlement"); the state never changes
                             * @enum {string}
                             */
                            moneyState: "none" | "partially_refunded" | "refunded" | "reversed" | "disputed" | "charged_back";
                            /** @description Money returned to the payer so far (refunds, a reversal, lost disputes), integer minor units of `currency` */
                            returnedMinor: number;
                            /**
                             * @description A State Mismatch's resolution (docs/state-machine.md, "Resolving a State Mismatch"); `null` for none. The state stays `STATE_MISMATCH`
                             * @enum {string|null}
                             */
                            resolution: "accepted_as_paid" | "refund_due" | "refunded" | null;
                        };
                        timeline: {
                            position: number;
                            revision: number;
                            type: string;
                            /**
                             * Format: date-time
                             * @description ISO 8601, UTC
                             */
                            recordedAt: string;
                            trigger: string | null;
                            verdict: string | null;
                            state: string | null;
                            detail: string | null;
                            /** @description Who asked for it: on admin actions only */
                            actor?: {
                                email: string;
                                role: string;
                            };
                            /** @description An admin action's name and outcome (`null` while unknown) */
                            adminAction?: {
                                /** @enum {string} */
                                action: "transaction.reconcile" | "delivery.resend" | "endpoint.recover" | "endpoint.enable" | "endpoint.disable" | "user.create" | "user.update" | "proposal.create" | "proposal.approve" | "proposal.reject" | "unmatched_payment.close" | "reconciliation.run_start" | "reconciliation_exception.resolve" | "state_mismatch.refund_due";
                                /** @enum {string|null} */
                                outcome: "succeeded" | "failed" | null;
                                errorCode: string | null;
                                /**
                                 * Format: date-time
                                 * @description ISO 8601, UTC
                                 */
                                completedAt: string | null;
                            };
                            /** @description A money fact after settlement: what the provider's own object said (docs/state-machine.md) */
                            movement?: {
                                /** @enum {string} */
                                kind: "refund" | "reversal" | "dispute";
                                /** @description The provider's own id of the refund, dispute or reversed transaction */
                                providerId: string;
                                /** @description The provider's raw status */
                                providerStatus: string;
                                /** @description Integer, minor units */
                                amountMinor: number;
                                currency: string;
                                /**
                                 * Format: date-time
                                 * @description When the provider created the object
                                 */
                                createdAt: string;
                                /**
                                 * @description The money state after this fact; `null` for an object the checks refused
                                 * @enum {string|null}
                                 */
                                moneyState: "none" | "partially_refunded" | "refunded" | "reversed" | "disputed" | "charged_back" | null;
                                returnedMinor: number | null;
                                /** @description A dispute's reason, as the provider names it */
                                reason: string | null;
                                /**
                                 * @description A decided dispute: `won` or `lost`
                                 * @enum {string|null}
                                 */
                                outcome: "open" | "won" | "lost" | null;
                                /** @description A refused object: the codes of the checks it failed (`MOVEMENT.*`) */
                                failedChecks: string[];
                            };
                            /** @description A State Mismatch's resolution fact (docs/state-machine.md, "Resolving a State Mismatch") */
                            resolution?: {
                                proposalId: string | null;
                                /** @description `SettledByOverride`: who proposed it */
                                proposedBy: string | null;
                                /** @description `SettledByOverride`: the different admin who approved it */
                                approvedBy: string | null;
                                /** @description `MismatchRefundDue`: the admin who closed it */
                                closedBy: string | null;
                                note: string | null;
                                /** @description Registered minus paid, minor units: the difference accepted */
                                differenceMinor: number | null;
                                /** @description `MismatchRefundDueClosed`: money returned by then, minor units */
                                returnedMinor: number | null;
                            };
                        }[];
                        watch: {
                            /**
                             * Format: date-time
                             * @description ISO 8601, UTC
                             */
                            nextCheckAt: string | null;
                            checksSoFar: number;
                            active: boolean;
                        } | null;
                        entitlementEvents: {
                            eventId: string;
                            event: string;
                            /**
                             * Format: date-time
                             * @description ISO 8601, UTC
                             */
                            expiresAt: string | null;
                            deliveries: {
                                endpointId: string;
                                endpointUrl: string;
                                status: string;
                                attempts: {
                                    /**
                                     * Format: date-time
                                     * @description ISO 8601, UTC
                                     */
                                    at: string;
                                    outcome: string;
                                    httpStatus: number | null;
                                    /** @description Milliseconds */
                                    durationMs: number;
                                }[];
                            }[];
                        }[];
                    };
                };
            };
            /** @description `CONSOLE.UNAUTHENTICATED` */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `CONSOLE.TRANSACTION_NOT_FOUND` */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `READ_MODEL.NOT_READY` */
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
    TransactionsController_reconcile: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The checkout reference */
                reference: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Requested; follow the outcome on the transaction */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        reference: string;
                        /** @description The transaction's state when ingestion took the request */
                        state: string;
                    };
                };
            };
            /** @description `CONSOLE.UNAUTHENTICATED` */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `CONSOLE.CSRF_REJECTED`, `CONSOLE.FORBIDDEN` */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `CONSOLE.TRANSACTION_NOT_FOUND` */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `CONSOLE.INGESTION_REJECTED` */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `CONSOLE.INGESTION_UNAVAILABLE`, `CONSOLE.AUDIT_UNAVAILABLE` */
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
    QueuesController_heldInReview: {
        parameters: {
            query?: {
                cursor?: string;
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
                        items: {
                            reference: string;
                            /** @enum {string} */
                            provider: "paystack" | "stripe" | "flutterwave" | "mpesa";
                            /** @enum {string} */
                            state: "PENDING" | "RECOVERING" | "MANUAL_REVIEW" | "SETTLED_CONSENSUS" | "FAILED_DECLINED" | "STATE_MISMATCH";
                            /** @enum {string} */
                            entitlementStatus: "LOCKED" | "UNLOCKED" | "HELD_IN_REVIEW";
                            /** @description Integer, minor units of `currency` */
                            amountMinor: number;
                            currency: string;
                            userId: string | null;
                            email: string | null;
                            /**
                             * Format: date-time
                             * @description ISO 8601, UTC
                             */
                            updatedAt: string;
                            /**
                             * Format: date-time
                             * @description The sweeper's next re-check; `null` when none is scheduled
                             */
                            nextCheckAt: string | null;
                            checksSoFar: number;
                        }[];
                        /** @description Cursor of the next page (pass it as `cursor`); `null` on the last page */
                        nextCursor: string | null;
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
            /** @description `CONSOLE.UNAUTHENTICATED` */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `READ_MODEL.NOT_READY` */
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
    QueuesController_manualReview: {
        parameters: {
            query?: {
                cursor?: string;
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
                        items: {
                            reference: string;
                            /** @enum {string} */
                            provider: "paystack" | "stripe" | "flutterwave" | "mpesa";
                            /** @enum {string} */
                            state: "PENDING" | "RECOVERING" | "MANUAL_REVIEW" | "SETTLED_CONSENSUS" | "FAILED_DECLINED" | "STATE_MISMATCH";
                            /** @enum {string} */
                            entitlementStatus: "LOCKED" | "UNLOCKED" | "HELD_IN_REVIEW";
                            /** @description Integer, minor units of `currency` */
                            amountMinor: number;
                            currency: string;
                            userId: string | null;
                            email: string | null;
                            /**
                             * Format: date-time
                             * @description ISO 8601, UTC
                             */
                            updatedAt: string;
                            lastVerdict: string | null;
                            lastTrigger: string | null;
                            checksSoFar: number;
                            lastEvent: {
                                type: string;
                                /**
                                 * Format: date-time
                                 * @description ISO 8601, UTC
                                 */
                                recordedAt: string;
                                detail: string | null;
                            } | null;
                        }[];
                        /** @description Cursor of the next page (pass it as `cursor`); `null` on the last page */
                        nextCursor: string | null;
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
            /** @description `CONSOLE.UNAUTHENTICATED` */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `READ_MODEL.NOT_READY` */
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
    QueuesController_stateMismatch: {
        parameters: {
            query?: {
                cursor?: string;
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
                        items: {
                            reference: string;
                            /** @enum {string} */
                            provider: "paystack" | "stripe" | "flutterwave" | "mpesa";
                            /** @enum {string} */
                            state: "PENDING" | "RECOVERING" | "MANUAL_REVIEW" | "SETTLED_CONSENSUS" | "FAILED_DECLINED" | "STATE_MISMATCH";
                            /** @enum {string} */
                            entitlementStatus: "LOCKED" | "UNLOCKED" | "HELD_IN_REVIEW";
                            /** @description Integer, minor units of `currency` */
                            amountMinor: number;
                            currency: string;
                            userId: string | null;
                            email: string | null;
                            /**
                             * Format: date-time
                             * @description ISO 8601, UTC
                             */
                            updatedAt: string;
                            failedChecks: {
                                check: string;
                                code: string | null;
                                /** @description What Settle registered */
                                expected: string;
                                /** @description What the provider reported */
                                observed: string;
                                /** @description The provider answer's field the observed value was read from */
                                providerField: string | null;
                            }[];
                        }[];
                        /** @description Cursor of the next page (pass it as `cursor`); `null` on the last page */
                        nextCursor: string | null;
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
            /** @description `CONSOLE.UNAUTHENTICATED` */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `READ_MODEL.NOT_READY` */
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
    QueuesController_disputes: {
        parameters: {
            query?: {
                cursor?: string;
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
                        items: {
                            reference: string;
                            /** @enum {string} */
                            provider: "paystack" | "stripe" | "flutterwave" | "mpesa";
                            /** @enum {string} */
                            state: "PENDING" | "RECOVERING" | "MANUAL_REVIEW" | "SETTLED_CONSENSUS" | "FAILED_DECLINED" | "STATE_MISMATCH";
                            /** @enum {string} */
                            entitlementStatus: "LOCKED" | "UNLOCKED" | "HELD_IN_REVIEW";
                            /** @description Integer, minor units of `currency` */
                            amountMinor: number;
                            currency: string;
                            userId: string | null;
                            email: string | null;
                            /**
                             * Format: date-time
                             * @description ISO 8601, UTC
                             */
                            updatedAt: string;
                            /** @enum {string} */
                            moneyState: "none" | "partially_refunded" | "refunded" | "reversed" | "disputed" | "charged_back";
                            /** @description Money returned so far (refunds before the dispute), integer minor units */
                            returnedMinor: number;
                            disputes: {
                                /** @description The provider's dispute id */
                                providerId: string;
                                /** @description The disputed amount, integer minor units */
                                amountMinor: number;
                                /** @description The payer's reason as the provider names it */
                                reason: string | null;
                                /**
                                 * Format: date-time
                                 * @description ISO 8601, UTC
                                 */
                                openedAt: string;
                            }[];
                        }[];
                        /** @description Cursor of the next page (pass it as `cursor`); `null` on the last page */
                        nextCursor: string | null;
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
            /** @description `CONSOLE.UNAUTHENTICATED` */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `READ_MODEL.NOT_READY` */
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
    QueuesController_unmatchedPayments: {
        parameters: {
            query?: {
                cursor?: string;
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
                        items: {
                            /** @description The reference the provider confirmed a payment for; no checkout has it */
                            reference: string;
                            /** @enum {string} */
                            provider: "paystack" | "stripe" | "flutterwave" | "mpesa";
                            /** @description Integer, minor units of `currency`; `null` when the provider answer carries none (M-Pesa) */
                            amountMinor: number | null;
                            currency: string | null;
                            /** @description The customer the provider confirmed, masked (`c•••@example.com`, `+254•••678`); `null` fields when unverified */
                            customer: {
                                email: string | null;
                                phone: string | null;
                            };
                            /** @description Whether amount and customer come from the provider's verified answer (false for M-Pesa: unverified) */
                            termsVerified: boolean;
                            /** @description The provider's own status of the payment */
                            providerStatus: string | null;
                            /** @description The provider's own id of the payment */
                            providerTransactionId: string | null;
                            /**
                             * Format: date-time
                             * @description When the provider confirmed it
                             */
                            verifiedAt: string;
                        }[];
                        /** @description Cursor of the next page (pass it as `cursor`); `null` on the last page */
                        nextCursor: string | null;
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
            /** @description `CONSOLE.UNAUTHENTICATED` */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `READ_MODEL.NOT_READY` */
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
    OverviewController_overview: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The overview */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Transactions per state; every state listed, 0 when none */
                        states: {
                            [key: string]: number;
                        };
                        /** @description Transactions per entitlement status */
                        entitlements: {
                            [key: string]: number;
                        };
                        /** @description The held-in-review queue: RECOVERING with entitlement HELD_IN_REVIEW */
                        heldInReview: number;
                        manualReview: number;
                        stateMismatch: number;
                        total: number;
                        /** @description Deliveries the dispatcher gave up (state `failed`) */
                        deadLetteredDeliveries: number;
                        /** @description Records in the dead-letter topics */
                        deadLetteredMessages: {
                            /** @enum {string} */
                            status: "ok";
                            /**
                             * Format: date-time
                             * @description ISO 8601, UTC
                             */
                            checkedAt: string;
                            total: number;
                            topics: {
                                topic: string;
                                /** @enum {string} */
                                kind: "messages" | "deliveries";
                                records: number;
                                exists: boolean;
                                partitions: {
                                    partition: number;
                                    low: number;
                                    high: number;
                                    records: number;
                                }[];
                            }[];
                        } | {
                            /** @enum {string} */
                            status: "unavailable";
                            /** @enum {string} */
                            code: "CONSOLE.KAFKA_UNAVAILABLE";
                            detail: string;
                            /**
                             * Format: date-time
                             * @description ISO 8601, UTC
                             */
                            checkedAt: string;
                        } | {
                            /** @enum {string} */
                            status: "not_configured";
                        };
                        /** @description The workers' consumer groups' lag */
                        consumerLag: {
                            /** @enum {string} */
                            status: "ok";
                            /**
                             * Format: date-time
                             * @description ISO 8601, UTC
                             */
                            checkedAt: string;
                            total: number;
                            groups: {
                                worker: string;
                                groupId: string;
                                topics: string[];
                                state: string;
                                members: number;
                                lag: number;
                                partitions: {
                                    topic: string;
                                    partition: number;
                                    committedOffset: number | null;
                                    endOffset: number;
                                    lag: number;
                                }[];
                            }[];
                        } | {
                            /** @enum {string} */
                            status: "unavailable";
                            /** @enum {string} */
                            code: "CONSOLE.KAFKA_UNAVAILABLE";
                            detail: string;
                            /**
                             * Format: date-time
                             * @description ISO 8601, UTC
                             */
                            checkedAt: string;
                        } | {
                            /** @enum {string} */
                            status: "not_configured";
                        };
                        /** @description The ledger's hash chains as the console's own verification last found them */
                        ledgerChains: {
                            /** @enum {string} */
                            status: "verified";
                            position: number;
                            globalHash: string;
                            /**
                             * Format: date-time
                             * @description ISO 8601, UTC
                             */
                            verifiedAt: string;
                            eventsChecked: number;
                            /**
                             * Format: date-time
                             * @description ISO 8601, UTC
                             */
                            lastFullVerificationAt: string | null;
                            /** @description The ledger against the signed checkpoints of the checkpoint sink */
                            checkpoints: {
                                /** @enum {string} */
                                status: "checked";
                                /** @description Signed checkpoints the verified events agree with */
                                checked: number;
                                /** @description The latest of them covers positions 1 to this size */
                                latestSize: number | null;
                                /**
                                 * Format: date-time
                                 * @description When the latest was signed
                                 */
                                latestSignedAt: string | null;
                                /** @description Whose verifier keys were trusted: LEDGER_CHECKPOINT_KEYS, or the sink’s keys/ folder */
                                keysFrom: string | null;
                            } | {
                                /** @enum {string} */
                                status: "not_checked";
                                /** @description Why the last verification did not check them */
                                reason: string;
                            };
                        } | {
                            /** @enum {string} */
                            status: "broken";
                            position: number;
                            reason: string;
                            streamId: string | null;
                            revision: number | null;
                            /**
                             * Format: date-time
                             * @description ISO 8601, UTC
                             */
                            checkedAt: string;
                            lastVerifiedPosition: number;
                            /** @description Found against a signed checkpoint (position is its size) rather than in the chains */
                            againstSignedCheckpoint: boolean;
                        } | {
                            /** @enum {string} */
                            status: "pending";
                        } | {
                            /** @enum {string} */
                            status: "not_applicable";
                            detail: string;
                        };
                    };
                };
            };
            /** @description `CONSOLE.UNAUTHENTICATED` */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `READ_MODEL.NOT_READY` */
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
    DeliveriesController_endpoints: {
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
                        items: {
                            /** Format: uuid */
                            id: string;
                            url: string;
                            description: string | null;
                            eventKinds: string[];
                            enabled: boolean;
                            disabledReason: string | null;
                            /**
                             * Format: date-time
                             * @description ISO 8601, UTC
                             */
                            disabledAt: string | null;
                            /**
                             * Format: date-time
                             * @description ISO 8601, UTC
                             */
                            failingSince: string | null;
                            /**
                             * Format: date-time
                             * @description ISO 8601, UTC
                             */
                            previousSecretExpiresAt: string | null;
                            /**
                             * Format: date-time
                             * @description ISO 8601, UTC
                             */
                            createdAt: string;
                            /**
                             * Format: date-time
                             * @description ISO 8601, UTC
                             */
                            updatedAt: string;
                        }[];
                    };
                };
            };
            /** @description `CONSOLE.UNAUTHENTICATED` */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `CONSOLE.DISPATCHER_REJECTED` */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `CONSOLE.DELIVERY_NOT_CONFIGURED`, `CONSOLE.DISPATCHER_UNAVAILABLE` */
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
    DeliveriesController_endpoint: {
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
                        endpoint: {
                            /** Format: uuid */
                            id: string;
                            url: string;
                            description: string | null;
                            eventKinds: string[];
                            enabled: boolean;
                            disabledReason: string | null;
                            /**
                             * Format: date-time
                             * @description ISO 8601, UTC
                             */
                            disabledAt: string | null;
                            /**
                             * Format: date-time
                             * @description ISO 8601, UTC
                             */
                            failingSince: string | null;
                            /**
                             * Format: date-time
                             * @description ISO 8601, UTC
                             */
                            previousSecretExpiresAt: string | null;
                            /**
                             * Format: date-time
                             * @description ISO 8601, UTC
                             */
                            createdAt: string;
                            /**
                             * Format: date-time
                             * @description ISO 8601, UTC
                             */
                            updatedAt: string;
                        };
                        recentDeliveries: {
                            deliveryId: number;
                            /** Format: uuid */
                            eventId: string;
                            event: string;
                            userId: string;
                            /** Format: uuid */
                            endpointId: string;
                            endpointUrl: string | null;
                            /**
                             * @description `failed`: dead-lettered
                             * @enum {string}
                             */
                            state: "pending" | "delivered" | "failed" | "cancelled";
                            attemptCount: number;
                            /**
                             * Format: date-time
                             * @description ISO 8601, UTC
                             */
                            nextAttemptAt: string | null;
                            /**
                             * Format: date-time
                             * @description ISO 8601, UTC
                             */
                            deliveredAt: string | null;
                            lastStatus: number | null;
                            lastError: string | null;
                            /**
                             * Format: date-time
                             * @description ISO 8601, UTC
                             */
                            recordedAt: string;
                        }[];
                    };
                };
            };
            /** @description `CONSOLE.UNAUTHENTICATED` */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `CONSOLE.ENDPOINT_NOT_FOUND` */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `CONSOLE.DISPATCHER_REJECTED` */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `CONSOLE.DELIVERY_NOT_CONFIGURED`, `CONSOLE.DISPATCHER_UNAVAILABLE` */
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
                endpointId?: string;
                cursor?: string;
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
                        items: {
                            deliveryId: number;
                            /** Format: uuid */
                            eventId: string;
                            event: string;
                            userId: string;
                            /** Format: uuid */
                            endpointId: string;
                            endpointUrl: string | null;
                            /**
                             * @description `failed`: dead-lettered
                             * @enum {string}
                             */
                            state: "pending" | "delivered" | "failed" | "cancelled";
                            attemptCount: number;
                            /**
                             * Format: date-time
                             * @description ISO 8601, UTC
                             */
                            nextAttemptAt: string | null;
                            /**
                             * Format: date-time
                             * @description ISO 8601, UTC
                             */
                            deliveredAt: string | null;
                            lastStatus: number | null;
                            lastError: string | null;
                            /**
                             * Format: date-time
                             * @description ISO 8601, UTC
                             */
                            recordedAt: string;
                        }[];
                        /** @description Cursor of the next page (pass it as `cursor`); `null` on the last page */
                        nextCursor: string | null;
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
            /** @description `CONSOLE.UNAUTHENTICATED` */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `CONSOLE.DISPATCHER_REJECTED` */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `CONSOLE.DELIVERY_NOT_CONFIGURED`, `CONSOLE.DISPATCHER_UNAVAILABLE` */
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
    DeliveriesController_eventDeliveries: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The entitlement event's id (UUID) */
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
                        eventId: string;
                        deliveries: {
                            deliveryId: number;
                            /** Format: uuid */
                            eventId: string;
                            event: string;
                            userId: string;
                            /** Format: uuid */
                            endpointId: string;
                            endpointUrl: string | null;
                            /**
                             * @description `failed`: dead-lettered
                             * @enum {string}
                             */
                            state: "pending" | "delivered" | "failed" | "cancelled";
                            attemptCount: number;
                            /**
                             * Format: date-time
                             * @description ISO 8601, UTC
                             */
                            nextAttemptAt: string | null;
                            /**
                             * Format: date-time
                             * @description ISO 8601, UTC
                             */
                            deliveredAt: string | null;
                            lastStatus: number | null;
                            lastError: string | null;
                            /**
                             * Format: date-time
                             * @description ISO 8601, UTC
                             */
                            recordedAt: string;
                            attempts: {
                                attempt: number;
                                /**
                                 * Format: date-time
                                 * @description ISO 8601, UTC
                                 */
                                at: string;
                                outcome: string;
                                httpStatus: number | null;
                                /** @description Milliseconds */
                                durationMs: number;
                                error: string | null;
                                responseExcerpt: string | null;
                                /**
                                 * Format: date-time
                                 * @description ISO 8601, UTC
                                 */
                                nextAttemptAt: string | null;
                            }[];
                        }[];
                    };
                };
            };
            /** @description `CONSOLE.UNAUTHENTICATED` */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `CONSOLE.EVENT_NOT_FOUND` */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `CONSOLE.DISPATCHER_REJECTED` */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `CONSOLE.DELIVERY_NOT_CONFIGURED`, `CONSOLE.DISPATCHER_UNAVAILABLE` */
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
                /** @description The entitlement event's id (UUID) */
                eventId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    endpointId?: string;
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
                        /** Format: uuid */
                        eventId: string;
                        /** @description Deliveries scheduled */
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
            /** @description `CONSOLE.UNAUTHENTICATED` */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `CONSOLE.CSRF_REJECTED`, `CONSOLE.FORBIDDEN` */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `CONSOLE.EVENT_NOT_FOUND` */
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
            /** @description `CONSOLE.DISPATCHER_REJECTED` */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `CONSOLE.DELIVERY_NOT_CONFIGURED`, `CONSOLE.DISPATCHER_UNAVAILABLE`, `CONSOLE.AUDIT_UNAVAILABLE` */
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
    DeliveriesController_recover: {
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
                    /**
                     * Format: date-time
                     * @description ISO 8601 with its offset; not in the future, at most 30 days ago
                     */
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
                        /** Format: uuid */
                        endpointId: string;
                        /**
                         * Format: date-time
                         * @description ISO 8601, UTC
                         */
                        since: string;
                        /** @description Deliveries scheduled */
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
            /** @description `CONSOLE.UNAUTHENTICATED` */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `CONSOLE.CSRF_REJECTED`, `CONSOLE.FORBIDDEN` */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `CONSOLE.ENDPOINT_NOT_FOUND` */
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
            /** @description `CONSOLE.DISPATCHER_REJECTED` */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `CONSOLE.DELIVERY_NOT_CONFIGURED`, `CONSOLE.DISPATCHER_UNAVAILABLE`, `CONSOLE.AUDIT_UNAVAILABLE` */
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
    DeliveriesController_enable: {
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
                        url: string;
                        description: string | null;
                        eventKinds: string[];
                        enabled: boolean;
                        disabledReason: string | null;
                        /**
                         * Format: date-time
                         * @description ISO 8601, UTC
                         */
                        disabledAt: string | null;
                        /**
                         * Format: date-time
                         * @description ISO 8601, UTC
                         */
                        failingSince: string | null;
                        /**
                         * Format: date-time
                         * @description ISO 8601, UTC
                         */
                        previousSecretExpiresAt: string | null;
                        /**
                         * Format: date-time
                         * @description ISO 8601, UTC
                         */
                        createdAt: string;
                        /**
                         * Format: date-time
                         * @description ISO 8601, UTC
                         */
                        updatedAt: string;
                    };
                };
            };
            /** @description `CONSOLE.UNAUTHENTICATED` */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `CONSOLE.CSRF_REJECTED`, `CONSOLE.FORBIDDEN` */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `CONSOLE.ENDPOINT_NOT_FOUND` */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `CONSOLE.DISPATCHER_REJECTED` */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `CONSOLE.DELIVERY_NOT_CONFIGURED`, `CONSOLE.DISPATCHER_UNAVAILABLE`, `CONSOLE.AUDIT_UNAVAILABLE` */
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
    DeliveriesController_disable: {
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
                        url: string;
                        description: string | null;
                        eventKinds: string[];
                        enabled: boolean;
                        disabledReason: string | null;
                        /**
                         * Format: date-time
                         * @description ISO 8601, UTC
                         */
                        disabledAt: string | null;
                        /**
                         * Format: date-time
                         * @description ISO 8601, UTC
                         */
                        failingSince: string | null;
                        /**
                         * Format: date-time
                         * @description ISO 8601, UTC
                         */
                        previousSecretExpiresAt: string | null;
                        /**
                         * Format: date-time
                         * @description ISO 8601, UTC
                         */
                        createdAt: string;
                        /**
                         * Format: date-time
                         * @description ISO 8601, UTC
                         */
                        updatedAt: string;
                    };
                };
            };
            /** @description `CONSOLE.UNAUTHENTICATED` */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `CONSOLE.CSRF_REJECTED`, `CONSOLE.FORBIDDEN` */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `CONSOLE.ENDPOINT_NOT_FOUND` */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `CONSOLE.DISPATCHER_REJECTED` */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `CONSOLE.DELIVERY_NOT_CONFIGURED`, `CONSOLE.DISPATCHER_UNAVAILABLE`, `CONSOLE.AUDIT_UNAVAILABLE` */
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
    ReconciliationController_runs: {
        parameters: {
            query?: {
                provider?: "paystack" | "stripe" | "flutterwave" | "mpesa";
                cursor?: string;
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
                        items: {
                            runId: string;
                            /** @enum {string} */
                            provider: "paystack" | "stripe" | "flutterwave" | "mpesa";
                            /**
                             * @description `incremental` and `daily` are scheduled; `on_demand` was started by someone
                             * @enum {string}
                             */
                            kind: "incremental" | "daily" | "on_demand";
                            /** @enum {string} */
                            status: "started" | "progressed" | "completed" | "failed";
                            /** @description The provider's creation times compared: `since` inclusive, `until` exclusive */
                            window: {
                                /**
                                 * Format: date-time
                                 * @description ISO 8601, UTC
                                 */
                                since: string;
                                /**
                                 * Format: date-time
                                 * @description ISO 8601, UTC
                                 */
                                until: string;
                            };
                            dryRun: boolean;
                            /** @description Who started it: an operator's e-mail, `schedule`, `cli`, `admin-api`, `demo` */
                            startedBy: string;
                            /** @description Pages of the provider's list read so far */
                            pages: number;
                            /** @description The provider's page count when its list tells it */
                            totalPages: number | null;
                            /** @description Provider transactions read */
                            listed: number;
                            /** @description Without Settle's marker: counted, never classified */
                            outOfScope: number;
                            /** @description Inside the grace period: left for the next run */
                            tooRecent: number;
                            /** @description Provider transactions per class of the decision table (docs/reconciliation.md) */
                            classes: {
                                [key: string]: number;
                            };
                            exceptionsRaised: number;
                            exceptionsResolved: number;
                            /**
                             * Format: date-time
                             * @description ISO 8601, UTC
                             */
                            startedAt: string;
                            /**
                             * Format: date-time
                             * @description ISO 8601, UTC
                             */
                            finishedAt: string | null;
                            /** @description Why a failed run failed */
                            error: string | null;
                        }[];
                        /** @description Cursor of the next page (pass it as `cursor`); `null` on the last page */
                        nextCursor: string | null;
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
            /** @description `CONSOLE.UNAUTHENTICATED` */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `READ_MODEL.NOT_READY` */
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
    ReconciliationController_startRun: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /**
                     * @description paystack, stripe or flutterwave (M-Pesa has no list: `CONSOLE.RECONCILIATION_PROVIDER_CANNOT_LIST`)
                     * @enum {string}
                     */
                    provider: "paystack" | "stripe" | "flutterwave" | "mpesa";
                    /**
                     * Format: date-time
                     * @description Start of the window by the provider's creation time (inclusive)
                     */
                    since: string;
                    /**
                     * Format: date-time
                     * @description End of the window (exclusive); default now. At most 31 days after `since`
                     */
                    until?: string;
                    /**
                     * @description Compare and count only: no exception recorded, nothing asked of the verifier
                     * @default false
                     */
                    dryRun?: boolean;
                };
            };
        };
        responses: {
            /** @description Requested: the run appears in the list once the verifier started it */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        runId: string;
                        /** @enum {string} */
                        status: "requested";
                        window: {
                            /**
                             * Format: date-time
                             * @description ISO 8601, UTC
                             */
                            since: string;
                            /**
                             * Format: date-time
                             * @description ISO 8601, UTC
                             */
                            until: string;
                        };
                    };
                };
            };
            /** @description `REQUEST.MALFORMED_JSON`, `REQUEST.DUPLICATE_KEY`, `REQUEST.AMBIGUOUS_NUMBER`, `REQUEST.INVALID_CHARACTER`, `REQUEST.VALIDATION_FAILED`, `CONSOLE.RECONCILIATION_PROVIDER_CANNOT_LIST`, `CONSOLE.RECONCILIATION_INVALID_WINDOW` */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `CONSOLE.UNAUTHENTICATED` */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `CONSOLE.CSRF_REJECTED`, `CONSOLE.FORBIDDEN` */
            403: {
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
            /** @description `CONSOLE.INGESTION_REJECTED` */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `CONSOLE.INGESTION_UNAVAILABLE`, `CONSOLE.AUDIT_UNAVAILABLE` */
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
    ReconciliationController_run: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The run's id (`rcr_...`) */
                runId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The run */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        runId: string;
                        /** @enum {string} */
                        provider: "paystack" | "stripe" | "flutterwave" | "mpesa";
                        /**
                         * @description `incremental` and `daily` are scheduled; `on_demand` was started by someone
                         * @enum {string}
                         */
                        kind: "incremental" | "daily" | "on_demand";
                        /** @enum {string} */
                        status: "started" | "progressed" | "completed" | "failed";
                        /** @description The provider's creation times compared: `since` inclusive, `until` exclusive */
                        window: {
                            /**
                             * Format: date-time
                             * @description ISO 8601, UTC
                             */
                            since: string;
                            /**
                             * Format: date-time
                             * @description ISO 8601, UTC
                             */
                            until: string;
                        };
                        dryRun: boolean;
                        /** @description Who started it: an operator's e-mail, `schedule`, `cli`, `admin-api`, `demo` */
                        startedBy: string;
                        /** @description Pages of the provider's list read so far */
                        pages: number;
                        /** @description The provider's page count when its list tells it */
                        totalPages: number | null;
                        /** @description Provider transactions read */
                        listed: number;
                        /** @description Without Settle's marker: counted, never classified */
                        outOfScope: number;
                        /** @description Inside the grace period: left for the next run */
                        tooRecent: number;
                        /** @description Provider transactions per class of the decision table (docs/reconciliation.md) */
                        classes: {
                            [key: string]: number;
                        };
                        exceptionsRaised: number;
                        exceptionsResolved: number;
                        /**
                         * Format: date-time
                         * @description ISO 8601, UTC
                         */
                        startedAt: string;
                        /**
                         * Format: date-time
                         * @description ISO 8601, UTC
                         */
                        finishedAt: string | null;
                        /** @description Why a failed run failed */
                        error: string | null;
                    };
                };
            };
            /** @description `CONSOLE.UNAUTHENTICATED` */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `CONSOLE.RECONCILIATION_RUN_NOT_FOUND` */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `READ_MODEL.NOT_READY` */
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
    ReconciliationController_exceptions: {
        parameters: {
            query?: {
                status?: "open" | "resolved";
                class?: "settled_not_successful" | "terms_differ" | "possible_duplicate" | "stuck" | "unknown_to_settle";
                provider?: "paystack" | "stripe" | "flutterwave" | "mpesa";
                runId?: string;
                format?: "json" | "csv";
                cursor?: string;
                limit?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description One page (or, with `format=csv`, every match as a text/csv attachment) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        items: {
                            exceptionId: string;
                            reference: string;
                            /** @enum {string} */
                            provider: "paystack" | "stripe" | "flutterwave" | "mpesa";
                            /** @enum {string} */
                            class: "settled_not_successful" | "terms_differ" | "possible_duplicate" | "stuck" | "unknown_to_settle";
                            /** @enum {string} */
                            status: "open" | "resolved";
                            /** @description Each field compared that differs, the provider's value beside Settle's (amounts in minor units, as text) */
                            evidence: {
                                field: string;
                                provider: string;
                                settle: string;
                            }[];
                            /** @description The run that raised it; `null` for the live duplicate-charge check */
                            runId: string | null;
                            providerTransactionId: string | null;
                            /** @description The provider's own status of the payment */
                            providerStatus: string | null;
                            /** @description Integer, minor units of `currency`, as the provider listed it */
                            amountMinor: number | null;
                            currency: string | null;
                            /**
                             * Format: date-time
                             * @description ISO 8601, UTC
                             */
                            raisedAt: string;
                            resolved: {
                                /**
                                 * Format: date-time
                                 * @description ISO 8601, UTC
                                 */
                                at: string;
                                /** @description `matches` (a later run found it in order), `reclassified`, or `operator` (with the reason as `note`) */
                                resolution: string;
                                note: string | null;
                                by: string | null;
                            } | null;
                        }[];
                        /** @description Cursor of the next page (pass it as `cursor`); `null` on the last page */
                        nextCursor: string | null;
                    };
                    "text/csv": {
                        items: {
                            exceptionId: string;
                            reference: string;
                            /** @enum {string} */
                            provider: "paystack" | "stripe" | "flutterwave" | "mpesa";
                            /** @enum {string} */
                            class: "settled_not_successful" | "terms_differ" | "possible_duplicate" | "stuck" | "unknown_to_settle";
                            /** @enum {string} */
                            status: "open" | "resolved";
                            /** @description Each field compared that differs, the provider's value beside Settle's (amounts in minor units, as text) */
                            evidence: {
                                field: string;
                                provider: string;
                                settle: string;
                            }[];
                            /** @description The run that raised it; `null` for the live duplicate-charge check */
                            runId: string | null;
                            providerTransactionId: string | null;
                            /** @description The provider's own status of the payment */
                            providerStatus: string | null;
                            /** @description Integer, minor units of `currency`, as the provider listed it */
                            amountMinor: number | null;
                            currency: string | null;
                            /**
                             * Format: date-time
                             * @description ISO 8601, UTC
                             */
                            raisedAt: string;
                            resolved: {
                                /**
                                 * Format: date-time
                                 * @description ISO 8601, UTC
                                 */
                                at: string;
                                /** @description `matches` (a later run found it in order), `reclassified`, or `operator` (with the reason as `note`) */
                                resolution: string;
                                note: string | null;
                                by: string | null;
                            } | null;
                        }[];
                        /** @description Cursor of the next page (pass it as `cursor`); `null` on the last page */
                        nextCursor: string | null;
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
            /** @description `CONSOLE.UNAUTHENTICATED` */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `READ_MODEL.NOT_READY` */
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
    ReconciliationController_resolve: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The exception's id (`rex_...`) */
                exceptionId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description Why it is resolved, in words an auditor reads (at most 500 characters) */
                    reason: string;
                };
            };
        };
        responses: {
            /** @description Requested: it reads resolved once the ledger recorded it */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        exceptionId: string;
                        /** @enum {string} */
                        status: "resolving";
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
            /** @description `CONSOLE.UNAUTHENTICATED` */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `CONSOLE.CSRF_REJECTED`, `CONSOLE.FORBIDDEN` */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `CONSOLE.RECONCILIATION_EXCEPTION_NOT_FOUND` */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `CONSOLE.RECONCILIATION_EXCEPTION_NOT_OPEN` */
            409: {
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
            /** @description `CONSOLE.INGESTION_REJECTED` */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `CONSOLE.INGESTION_UNAVAILABLE`, `CONSOLE.AUDIT_UNAVAILABLE` */
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
    AuditController_list: {
        parameters: {
            query?: {
                actor?: string;
                targetKind?: "transaction" | "event" | "endpoint" | "user" | "proposal" | "unmatched_payment" | "provider" | "reconciliation_exception";
                targetId?: string;
                cursor?: string;
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
                        items: {
                            /** Format: uuid */
                            actionId: string;
                            /** @enum {string} */
                            action: "transaction.reconcile" | "delivery.resend" | "endpoint.recover" | "endpoint.enable" | "endpoint.disable" | "user.create" | "user.update" | "proposal.create" | "proposal.approve" | "proposal.reject" | "unmatched_payment.close" | "reconciliation.run_start" | "reconciliation_exception.resolve" | "state_mismatch.refund_due";
                            actor: {
                                email: string;
                                role: string;
                            };
                            target: {
                                /** @enum {string} */
                                kind: "transaction" | "event" | "endpoint" | "user" | "proposal" | "unmatched_payment" | "provider" | "reconciliation_exception";
                                id: string;
                            };
                            parameters: {
                                [key: string]: unknown;
                            };
                            /**
                             * Format: date-time
                             * @description ISO 8601, UTC
                             */
                            requestedAt: string;
                            /**
                             * @description `null` while running, or when the outcome could not be recorded
                             * @enum {string|null}
                             */
                            outcome: "succeeded" | "failed" | null;
                            errorCode: string | null;
                            result: {
                                [key: string]: unknown;
                            } | null;
                            /**
                             * Format: date-time
                             * @description ISO 8601, UTC
                             */
                            completedAt: string | null;
                            /** @description Ledger position of the request */
                            position: number;
                        }[];
                        /** @description Cursor of the next page (pass it as `cursor`); `null` on the last page */
                        nextCursor: string | null;
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
            /** @description `CONSOLE.UNAUTHENTICATED` */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `CONSOLE.FORBIDDEN` */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `READ_MODEL.NOT_READY` */
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
    UsersController_list: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The users */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        items: {
                            email: string;
                            /** @enum {string} */
                            role: "viewer" | "operator" | "admin";
                            disabled: boolean;
                            /**
                             * Format: date-time
                             * @description ISO 8601, UTC
                             */
                            createdAt: string;
                            /**
                             * Format: date-time
                             * @description ISO 8601, UTC
                             */
                            lastSignInAt: string | null;
                        }[];
                    };
                };
            };
            /** @description `CONSOLE.UNAUTHENTICATED` */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `CONSOLE.FORBIDDEN` */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    UsersController_create: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    email: string;
                    /** @enum {string} */
                    role: "viewer" | "operator" | "admin";
                };
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        user: {
                            email: string;
                            /** @enum {string} */
                            role: "viewer" | "operator" | "admin";
                            disabled: boolean;
                            /**
                             * Format: date-time
                             * @description ISO 8601, UTC
                             */
                            createdAt: string;
                            /**
                             * Format: date-time
                             * @description ISO 8601, UTC
                             */
                            lastSignInAt: string | null;
                        };
                        /** @description Generated; shown once, stored only as an argon2id hash */
                        password: string;
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
            /** @description `CONSOLE.UNAUTHENTICATED` */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `CONSOLE.FORBIDDEN`, `CONSOLE.CSRF_REJECTED` */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `CONSOLE.USER_EXISTS` */
            409: {
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
            /** @description `CONSOLE.AUDIT_UNAVAILABLE` */
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
    UsersController_update: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The user's email */
                email: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @enum {string} */
                    role?: "viewer" | "operator" | "admin";
                    disabled?: boolean;
                };
            };
        };
        responses: {
            /** @description Changed */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        email: string;
                        /** @enum {string} */
                        role: "viewer" | "operator" | "admin";
                        disabled: boolean;
                        /**
                         * Format: date-time
                         * @description ISO 8601, UTC
                         */
                        createdAt: string;
                        /**
                         * Format: date-time
                         * @description ISO 8601, UTC
                         */
                        lastSignInAt: string | null;
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
            /** @description `CONSOLE.UNAUTHENTICATED` */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `CONSOLE.FORBIDDEN`, `CONSOLE.CSRF_REJECTED` */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `CONSOLE.USER_NOT_FOUND` */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `CONSOLE.SELF_CHANGE_REFUSED`, `CONSOLE.LAST_ADMIN` */
            409: {
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
            /** @description `CONSOLE.AUDIT_UNAVAILABLE` */
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
    UsersController_resetPassword: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The user's email */
                email: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Reset */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        user: {
                            email: string;
                            /** @enum {string} */
                            role: "viewer" | "operator" | "admin";
                            disabled: boolean;
                            /**
                             * Format: date-time
                             * @description ISO 8601, UTC
                             */
                            createdAt: string;
                            /**
                             * Format: date-time
                             * @description ISO 8601, UTC
                             */
                            lastSignInAt: string | null;
                        };
                        /** @description Generated; shown once, stored only as an argon2id hash */
                        password: string;
                    };
                };
            };
            /** @description `CONSOLE.UNAUTHENTICATED` */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `CONSOLE.FORBIDDEN`, `CONSOLE.CSRF_REJECTED` */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `CONSOLE.USER_NOT_FOUND` */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `CONSOLE.SELF_CHANGE_REFUSED` */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `CONSOLE.AUDIT_UNAVAILABLE` */
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
    ApprovalsController_proposeMatch: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The unmatched payment's reference */
                reference: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description Minor units */
                    amount: number;
                    currency: string;
                    user_id: string;
                    customer: {
                        /** Format: email */
                        email?: string;
                        phone?: string;
                    };
                    entitlement: string;
                    access_period: string;
                };
            };
        };
        responses: {
            /** @description Proposed; waits for a second admin */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** Format: uuid */
                        id: string;
                        /** @description What is to be done (`unmatched_payment.match`, `state_mismatch.accept_as_paid`, `privacy.erase`) */
                        action: string;
                        /** @description What it acts on; a `subject` (`privacy.erase`) reads `user:<id>` or `customer:<id>`, opened from its sealed form (for a viewer, a customer masked: `customer:c•••@example.com`), or `erased` */
                        target: {
                            kind: string;
                            id: string;
                        };
                        /** @description As the proposer gave them; approved as they are. A customer’s email and phone are stored sealed and shown opened to operators and admins, masked to viewers (`erased` once the customer was erased) */
                        parameters: {
                            [key: string]: unknown;
                        };
                        proposer: {
                            email: string;
                            role: string;
                        };
                        /**
                         * Format: date-time
                         * @description ISO 8601, UTC
                         */
                        proposedAt: string;
                        /**
                         * Format: date-time
                         * @description An approval at or after it is refused
                         */
                        expiresAt: string;
                        /** @enum {string} */
                        status: "pending" | "approved" | "rejected" | "expired";
                        decidedBy: {
                            email: string;
                            role: string;
                        } | null;
                        /**
                         * Format: date-time
                         * @description ISO 8601, UTC
                         */
                        decidedAt: string | null;
                        /** @description A rejection's reason */
                        reason: string | null;
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
            /** @description `CONSOLE.UNAUTHENTICATED` */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `CONSOLE.CSRF_REJECTED`, `CONSOLE.FORBIDDEN` */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `CONSOLE.UNMATCHED_PAYMENT_NOT_FOUND` */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `CONSOLE.UNMATCHED_PAYMENT_NOT_OPEN`, `CONSOLE.PROPOSAL_PENDING` */
            409: {
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
            /** @description `READ_MODEL.NOT_READY`, `CONSOLE.PRIVACY_VAULT_MISSING`, `CONSOLE.AUDIT_UNAVAILABLE` */
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
    ApprovalsController_proposeAcceptAsPaid: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The transaction's reference */
                reference: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    note: string;
                };
            };
        };
        responses: {
            /** @description Proposed; waits for a second admin */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** Format: uuid */
                        id: string;
                        /** @description What is to be done (`unmatched_payment.match`, `state_mismatch.accept_as_paid`, `privacy.erase`) */
                        action: string;
                        /** @description What it acts on; a `subject` (`privacy.erase`) reads `user:<id>` or `customer:<id>`, opened from its sealed form (for a viewer, a customer masked: `customer:c•••@example.com`), or `erased` */
                        target: {
                            kind: string;
                            id: string;
                        };
                        /** @description As the proposer gave them; approved as they are. A customer’s email and phone are stored sealed and shown opened to operators and admins, masked to viewers (`erased` once the customer was erased) */
                        parameters: {
                            [key: string]: unknown;
                        };
                        proposer: {
                            email: string;
                            role: string;
                        };
                        /**
                         * Format: date-time
                         * @description ISO 8601, UTC
                         */
                        proposedAt: string;
                        /**
                         * Format: date-time
                         * @description An approval at or after it is refused
                         */
                        expiresAt: string;
                        /** @enum {string} */
                        status: "pending" | "approved" | "rejected" | "expired";
                        decidedBy: {
                            email: string;
                            role: string;
                        } | null;
                        /**
                         * Format: date-time
                         * @description ISO 8601, UTC
                         */
                        decidedAt: string | null;
                        /** @description A rejection's reason */
                        reason: string | null;
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
            /** @description `CONSOLE.UNAUTHENTICATED` */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `CONSOLE.CSRF_REJECTED`, `CONSOLE.FORBIDDEN` */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `CONSOLE.TRANSACTION_NOT_FOUND` */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `CONSOLE.NOT_STATE_MISMATCH`, `CONSOLE.MISMATCH_RESOLVED`, `CONSOLE.MISMATCH_MONEY_RETURNED`, `CONSOLE.MISMATCH_DISPUTE_OPEN`, `CONSOLE.PROPOSAL_PENDING` */
            409: {
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
            /** @description `READ_MODEL.NOT_READY`, `CONSOLE.AUDIT_UNAVAILABLE` */
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
    ApprovalsController_pending: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The pending proposals */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        items: {
                            /** Format: uuid */
                            id: string;
                            /** @description What is to be done (`unmatched_payment.match`, `state_mismatch.accept_as_paid`, `privacy.erase`) */
                            action: string;
                            /** @description What it acts on; a `subject` (`privacy.erase`) reads `user:<id>` or `customer:<id>`, opened from its sealed form (for a viewer, a customer masked: `customer:c•••@example.com`), or `erased` */
                            target: {
                                kind: string;
                                id: string;
                            };
                            /** @description As the proposer gave them; approved as they are. A customer’s email and phone are stored sealed and shown opened to operators and admins, masked to viewers (`erased` once the customer was erased) */
                            parameters: {
                                [key: string]: unknown;
                            };
                            proposer: {
                                email: string;
                                role: string;
                            };
                            /**
                             * Format: date-time
                             * @description ISO 8601, UTC
                             */
                            proposedAt: string;
                            /**
                             * Format: date-time
                             * @description An approval at or after it is refused
                             */
                            expiresAt: string;
                            /** @enum {string} */
                            status: "pending" | "approved" | "rejected" | "expired";
                            decidedBy: {
                                email: string;
                                role: string;
                            } | null;
                            /**
                             * Format: date-time
                             * @description ISO 8601, UTC
                             */
                            decidedAt: string | null;
                            /** @description A rejection's reason */
                            reason: string | null;
                        }[];
                    };
                };
            };
            /** @description `CONSOLE.UNAUTHENTICATED` */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    ApprovalsController_one: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The proposal's id */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The proposal */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** Format: uuid */
                        id: string;
                        /** @description What is to be done (`unmatched_payment.match`, `state_mismatch.accept_as_paid`, `privacy.erase`) */
                        action: string;
                        /** @description What it acts on; a `subject` (`privacy.erase`) reads `user:<id>` or `customer:<id>`, opened from its sealed form (for a viewer, a customer masked: `customer:c•••@example.com`), or `erased` */
                        target: {
                            kind: string;
                            id: string;
                        };
                        /** @description As the proposer gave them; approved as they are. A customer’s email and phone are stored sealed and shown opened to operators and admins, masked to viewers (`erased` once the customer was erased) */
                        parameters: {
                            [key: string]: unknown;
                        };
                        proposer: {
                            email: string;
                            role: string;
                        };
                        /**
                         * Format: date-time
                         * @description ISO 8601, UTC
                         */
                        proposedAt: string;
                        /**
                         * Format: date-time
                         * @description An approval at or after it is refused
                         */
                        expiresAt: string;
                        /** @enum {string} */
                        status: "pending" | "approved" | "rejected" | "expired";
                        decidedBy: {
                            email: string;
                            role: string;
                        } | null;
                        /**
                         * Format: date-time
                         * @description ISO 8601, UTC
                         */
                        decidedAt: string | null;
                        /** @description A rejection's reason */
                        reason: string | null;
                    };
                };
            };
            /** @description `CONSOLE.UNAUTHENTICATED` */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `APPROVAL.UNKNOWN` */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    ApprovalsController_approve: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The proposal's id */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Approved, and the action ran */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        proposal: {
                            /** Format: uuid */
                            id: string;
                            /** @description What is to be done (`unmatched_payment.match`, `state_mismatch.accept_as_paid`, `privacy.erase`) */
                            action: string;
                            /** @description What it acts on; a `subject` (`privacy.erase`) reads `user:<id>` or `customer:<id>`, opened from its sealed form (for a viewer, a customer masked: `customer:c•••@example.com`), or `erased` */
                            target: {
                                kind: string;
                                id: string;
                            };
                            /** @description As the proposer gave them; approved as they are. A customer’s email and phone are stored sealed and shown opened to operators and admins, masked to viewers (`erased` once the customer was erased) */
                            parameters: {
                                [key: string]: unknown;
                            };
                            proposer: {
                                email: string;
                                role: string;
                            };
                            /**
                             * Format: date-time
                             * @description ISO 8601, UTC
                             */
                            proposedAt: string;
                            /**
                             * Format: date-time
                             * @description An approval at or after it is refused
                             */
                            expiresAt: string;
                            /** @enum {string} */
                            status: "pending" | "approved" | "rejected" | "expired";
                            decidedBy: {
                                email: string;
                                role: string;
                            } | null;
                            /**
                             * Format: date-time
                             * @description ISO 8601, UTC
                             */
                            decidedAt: string | null;
                            /** @description A rejection's reason */
                            reason: string | null;
                        };
                        /** @description What the action did (for a match: the checkout's reference and state; for an erasure: its id, the `SubjectErased` fact's ledger position and counts) */
                        result: {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description `CONSOLE.UNAUTHENTICATED` */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `CONSOLE.CSRF_REJECTED`, `CONSOLE.FORBIDDEN`, `APPROVAL.SELF_APPROVAL` */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `APPROVAL.UNKNOWN`, `CONSOLE.UNMATCHED_PAYMENT_NOT_FOUND` */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `APPROVAL.CLOSED`, `APPROVAL.CONFLICT`, `APPROVAL.EXPIRED`, `CONSOLE.UNMATCHED_PAYMENT_NOT_OPEN`, `CONSOLE.MATCH_REFUSED`, `CONSOLE.SUBJECT_ERASED` */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `CONSOLE.INGESTION_REJECTED`, `CONSOLE.SUBJECT_KEY_UNAVAILABLE` */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `CONSOLE.AUDIT_UNAVAILABLE`, `CONSOLE.INGESTION_UNAVAILABLE`, `CONSOLE.PRIVACY_VAULT_MISSING` */
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
    ApprovalsController_reject: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The proposal's id */
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    reason: string;
                };
            };
        };
        responses: {
            /** @description Rejected */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** Format: uuid */
                        id: string;
                        /** @description What is to be done (`unmatched_payment.match`, `state_mismatch.accept_as_paid`, `privacy.erase`) */
                        action: string;
                        /** @description What it acts on; a `subject` (`privacy.erase`) reads `user:<id>` or `customer:<id>`, opened from its sealed form (for a viewer, a customer masked: `customer:c•••@example.com`), or `erased` */
                        target: {
                            kind: string;
                            id: string;
                        };
                        /** @description As the proposer gave them; approved as they are. A customer’s email and phone are stored sealed and shown opened to operators and admins, masked to viewers (`erased` once the customer was erased) */
                        parameters: {
                            [key: string]: unknown;
                        };
                        proposer: {
                            email: string;
                            role: string;
                        };
                        /**
                         * Format: date-time
                         * @description ISO 8601, UTC
                         */
                        proposedAt: string;
                        /**
                         * Format: date-time
                         * @description An approval at or after it is refused
                         */
                        expiresAt: string;
                        /** @enum {string} */
                        status: "pending" | "approved" | "rejected" | "expired";
                        decidedBy: {
                            email: string;
                            role: string;
                        } | null;
                        /**
                         * Format: date-time
                         * @description ISO 8601, UTC
                         */
                        decidedAt: string | null;
                        /** @description A rejection's reason */
                        reason: string | null;
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
            /** @description `CONSOLE.UNAUTHENTICATED` */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `CONSOLE.CSRF_REJECTED`, `CONSOLE.FORBIDDEN`, `APPROVAL.FORBIDDEN` */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `APPROVAL.UNKNOWN` */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `APPROVAL.CLOSED`, `APPROVAL.CONFLICT` */
            409: {
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
            /** @description `CONSOLE.AUDIT_UNAVAILABLE` */
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
    PrivacyController_proposeErasure: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    subject: {
                        /**
                         * @description `user` (a `user_id`) or `customer` (an email or a phone)
                         * @enum {string}
                         */
                        kind: "user" | "customer";
                        /** @description The `user_id`, or the customer’s email (any case) or phone (+ and country code) */
                        id: string;
                    };
                    reason: string;
                };
            };
        };
        responses: {
            /** @description Proposed; waits for a second admin */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** Format: uuid */
                        id: string;
                        /** @description What is to be done (`unmatched_payment.match`, `state_mismatch.accept_as_paid`, `privacy.erase`) */
                        action: string;
                        /** @description What it acts on; a `subject` (`privacy.erase`) reads `user:<id>` or `customer:<id>`, opened from its sealed form (for a viewer, a customer masked: `customer:c•••@example.com`), or `erased` */
                        target: {
                            kind: string;
                            id: string;
                        };
                        /** @description As the proposer gave them; approved as they are. A customer’s email and phone are stored sealed and shown opened to operators and admins, masked to viewers (`erased` once the customer was erased) */
                        parameters: {
                            [key: string]: unknown;
                        };
                        proposer: {
                            email: string;
                            role: string;
                        };
                        /**
                         * Format: date-time
                         * @description ISO 8601, UTC
                         */
                        proposedAt: string;
                        /**
                         * Format: date-time
                         * @description An approval at or after it is refused
                         */
                        expiresAt: string;
                        /** @enum {string} */
                        status: "pending" | "approved" | "rejected" | "expired";
                        decidedBy: {
                            email: string;
                            role: string;
                        } | null;
                        /**
                         * Format: date-time
                         * @description ISO 8601, UTC
                         */
                        decidedAt: string | null;
                        /** @description A rejection's reason */
                        reason: string | null;
                    };
                };
            };
            /** @description `REQUEST.MALFORMED_JSON`, `REQUEST.DUPLICATE_KEY`, `REQUEST.AMBIGUOUS_NUMBER`, `REQUEST.INVALID_CHARACTER`, `REQUEST.VALIDATION_FAILED`, `PRIVACY.REASON_NAMES_SUBJECT` */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `CONSOLE.UNAUTHENTICATED` */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `CONSOLE.CSRF_REJECTED`, `CONSOLE.FORBIDDEN` */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `CONSOLE.PROPOSAL_PENDING` */
            409: {
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
            /** @description `CONSOLE.PRIVACY_VAULT_MISSING`, `CONSOLE.AUDIT_UNAVAILABLE` */
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
    UnmatchedPaymentsController_close: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The unmatched payment's reference */
                reference: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /**
                     * @description `refunded_outside_settle`, `test_payment` or `not_ours`
                     * @enum {string}
                     */
                    reason: "refunded_outside_settle" | "test_payment" | "not_ours";
                    /** @description Free text, at most 500 characters */
                    note?: string;
                };
            };
        };
        responses: {
            /** @description Requested: the payment reads closed once the ledger recorded it */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        reference: string;
                        /** @enum {string} */
                        status: "closing";
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
            /** @description `CONSOLE.UNAUTHENTICATED` */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `CONSOLE.CSRF_REJECTED`, `CONSOLE.FORBIDDEN` */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `CONSOLE.UNMATCHED_PAYMENT_NOT_FOUND` */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `CONSOLE.UNMATCHED_PAYMENT_NOT_OPEN` */
            409: {
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
            /** @description `CONSOLE.INGESTION_REJECTED` */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `CONSOLE.INGESTION_UNAVAILABLE`, `CONSOLE.AUDIT_UNAVAILABLE` */
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
    StateMismatchController_closeRefundDue: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The transaction's reference */
                reference: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description Free text, at most 500 characters */
                    note?: string;
                };
            };
        };
        responses: {
            /** @description Requested: the transaction reads `refund_due` once the ledger recorded it */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        reference: string;
                        /** @enum {string} */
                        status: "closing";
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
            /** @description `CONSOLE.UNAUTHENTICATED` */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `CONSOLE.CSRF_REJECTED`, `CONSOLE.FORBIDDEN` */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `CONSOLE.TRANSACTION_NOT_FOUND` */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `CONSOLE.NOT_STATE_MISMATCH`, `CONSOLE.MISMATCH_RESOLVED` */
            409: {
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
            /** @description `CONSOLE.INGESTION_REJECTED` */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description `READ_MODEL.NOT_READY`, `CONSOLE.INGESTION_UNAVAILABLE`, `CONSOLE.AUDIT_UNAVAILABLE` */
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
export const pathsApiV1SessionGetResponses200ContentApplicationJsonUserRoleValues: ReadonlyArray<FlattenedDeepRequired<paths>["/api/v1/session"]["get"]["responses"]["200"]["content"]["application/json"]["user"]["role"]> = ["viewer", "operator", "admin"];
export const pathsApiV1SessionPostResponses200ContentApplicationJsonUserRoleValues: ReadonlyArray<FlattenedDeepRequired<paths>["/api/v1/session"]["post"]["responses"]["200"]["content"]["application/json"]["user"]["role"]> = ["viewer", "operator", "admin"];
export const pathsApiV1TransactionsGetParametersQueryProviderValues: ReadonlyArray<FlattenedDeepRequired<paths>["/api/v1/transactions"]["get"]["parameters"]["query"]["provider"]> = ["paystack", "stripe", "flutterwave", "mpesa"];
export const pathsApiV1TransactionsGetParametersQueryStateValues: ReadonlyArray<FlattenedDeepRequired<paths>["/api/v1/transactions"]["get"]["parameters"]["query"]["state"]> = ["PENDING", "RECOVERING", "MANUAL_REVIEW", "SETTLED_CONSENSUS", "FAILED_DECLINED", "STATE_MISMATCH"];
export const pathsApiV1TransactionsGetParametersQueryEntitlementValues: ReadonlyArray<FlattenedDeepRequired<paths>["/api/v1/transactions"]["get"]["parameters"]["query"]["entitlement"]> = ["LOCKED", "UNLOCKED", "HELD_IN_REVIEW"];
export const pathsApiV1TransactionsGetResponses200ContentApplicationJsonItemsProviderValues: ReadonlyArray<FlattenedDeepRequired<paths>["/api/v1/transactions"]["get"]["responses"]["200"]["content"]["application/json"]["items"]["provider"]> = ["paystack", "stripe", "flutterwave", "mpesa"];
export const pathsApiV1TransactionsGetResponses200ContentApplicationJsonItemsStateValues: ReadonlyArray<FlattenedDeepRequired<paths>["/api/v1/transactions"]["get"]["responses"]["200"]["content"]["application/json"]["items"]["state"]> = ["PENDING", "RECOVERING", "MANUAL_REVIEW", "SETTLED_CONSENSUS", "FAILED_DECLINED", "STATE_MISMATCH"];
export const pathsApiV1TransactionsGetResponses200ContentApplicationJsonItemsEntitlementStatusValues: ReadonlyArray<FlattenedDeepRequired<paths>["/api/v1/transactions"]["get"]["responses"]["200"]["content"]["application/json"]["items"]["entitlementStatus"]> = ["LOCKED", "UNLOCKED", "HELD_IN_REVIEW"];
export const pathsApiV1TransactionsReferenceGetResponses200ContentApplicationJsonTransactionProviderValues: ReadonlyArray<FlattenedDeepRequired<paths>["/api/v1/transactions/{reference}"]["get"]["responses"]["200"]["content"]["application/json"]["transaction"]["provider"]> = ["paystack", "stripe", "flutterwave", "mpesa"];
export const pathsApiV1TransactionsReferenceGetResponses200ContentApplicationJsonTransactionStateValues: ReadonlyArray<FlattenedDeepRequired<paths>["/api/v1/transactions/{reference}"]["get"]["responses"]["200"]["content"]["application/json"]["transaction"]["state"]> = ["PENDING", "RECOVERING", "MANUAL_REVIEW", "SETTLED_CONSENSUS", "FAILED_DECLINED", "STATE_MISMATCH"];
export const pathsApiV1TransactionsReferenceGetResponses200ContentApplicationJsonTransactionEntitlementStatusValues: ReadonlyArray<FlattenedDeepRequired<paths>["/api/v1/transactions/{reference}"]["get"]["responses"]["200"]["content"]["application/json"]["transaction"]["entitlementStatus"]> = ["LOCKED", "UNLOCKED", "HELD_IN_REVIEW"];
export const pathsApiV1TransactionsReferenceGetResponses200ContentApplicationJsonTransactionMoneyStateValues: ReadonlyArray<FlattenedDeepRequired<paths>["/api/v1/transactions/{reference}"]["get"]["responses"]["200"]["content"]["application/json"]["transaction"]["moneyState"]> = ["none", "partially_refunded", "refunded", "reversed", "disputed", "charged_back"];
export const pathsApiV1TransactionsReferenceGetResponses200ContentApplicationJsonTransactionResolutionValues: ReadonlyArray<FlattenedDeepRequired<paths>["/api/v1/transactions/{reference}"]["get"]["responses"]["200"]["content"]["application/json"]["transaction"]["resolution"]> = ["accepted_as_paid", "refund_due", "refunded"];
export const pathsApiV1TransactionsReferenceGetResponses200ContentApplicationJsonTimelineAdminActionActionValues: ReadonlyArray<FlattenedDeepRequired<paths>["/api/v1/transactions/{reference}"]["get"]["responses"]["200"]["content"]["application/json"]["timeline"]["adminAction"]["action"]> = ["transaction.reconcile", "delivery.resend", "endpoint.recover", "endpoint.enable", "endpoint.disable", "user.create", "user.update", "proposal.create", "proposal.approve", "proposal.reject", "unmatched_payment.close", "reconciliation.run_start", "reconciliation_exception.resolve", "state_mismatch.refund_due"];
export const pathsApiV1TransactionsReferenceGetResponses200ContentApplicationJsonTimelineAdminActionOutcomeValues: ReadonlyArray<FlattenedDeepRequired<paths>["/api/v1/transactions/{reference}"]["get"]["responses"]["200"]["content"]["application/json"]["timeline"]["adminAction"]["outcome"]> = ["succeeded", "failed"];
export const pathsApiV1TransactionsReferenceGetResponses200ContentApplicationJsonTimelineMovementKindValues: ReadonlyArray<FlattenedDeepRequired<paths>["/api/v1/transactions/{reference}"]["get"]["responses"]["200"]["content"]["application/json"]["timeline"]["movement"]["kind"]> = ["refund", "reversal", "dispute"];
export const pathsApiV1TransactionsReferenceGetResponses200ContentApplicationJsonTimelineMovementMoneyStateValues: ReadonlyArray<FlattenedDeepRequired<paths>["/api/v1/transactions/{reference}"]["get"]["responses"]["200"]["content"]["application/json"]["timeline"]["movement"]["moneyState"]> = ["none", "partially_refunded", "refunded", "reversed", "disputed", "charged_back"];
export const pathsApiV1TransactionsReferenceGetResponses200ContentApplicationJsonTimelineMovementOutcomeValues: ReadonlyArray<FlattenedDeepRequired<paths>["/api/v1/transactions/{reference}"]["get"]["responses"]["200"]["content"]["application/json"]["timeline"]["movement"]["outcome"]> = ["open", "won", "lost"];
export const pathsApiV1QueuesHeldInReviewGetResponses200ContentApplicationJsonItemsProviderValues: ReadonlyArray<FlattenedDeepRequired<paths>["/api/v1/queues/held-in-review"]["get"]["responses"]["200"]["content"]["application/json"]["items"]["provider"]> = ["paystack", "stripe", "flutterwave", "mpesa"];
export const pathsApiV1QueuesHeldInReviewGetResponses200ContentApplicationJsonItemsStateValues: ReadonlyArray<FlattenedDeepRequired<paths>["/api/v1/queues/held-in-review"]["get"]["responses"]["200"]["content"]["application/json"]["items"]["state"]> = ["PENDING", "RECOVERING", "MANUAL_REVIEW", "SETTLED_CONSENSUS", "FAILED_DECLINED", "STATE_MISMATCH"];
export const pathsApiV1QueuesHeldInReviewGetResponses200ContentApplicationJsonItemsEntitlementStatusValues: ReadonlyArray<FlattenedDeepRequired<paths>["/api/v1/queues/held-in-review"]["get"]["responses"]["200"]["content"]["application/json"]["items"]["entitlementStatus"]> = ["LOCKED", "UNLOCKED", "HELD_IN_REVIEW"];
export const pathsApiV1QueuesManualReviewGetResponses200ContentApplicationJsonItemsProviderValues: ReadonlyArray<FlattenedDeepRequired<paths>["/api/v1/queues/manual-review"]["get"]["responses"]["200"]["content"]["application/json"]["items"]["provider"]> = ["paystack", "stripe", "flutterwave", "mpesa"];
export const pathsApiV1QueuesManualReviewGetResponses200ContentApplicationJsonItemsStateValues: ReadonlyArray<FlattenedDeepRequired<paths>["/api/v1/queues/manual-review"]["get"]["responses"]["200"]["content"]["application/json"]["items"]["state"]> = ["PENDING", "RECOVERING", "MANUAL_REVIEW", "SETTLED_CONSENSUS", "FAILED_DECLINED", "STATE_MISMATCH"];
export const pathsApiV1QueuesManualReviewGetResponses200ContentApplicationJsonItemsEntitlementStatusValues: ReadonlyArray<FlattenedDeepRequired<paths>["/api/v1/queues/manual-review"]["get"]["responses"]["200"]["content"]["application/json"]["items"]["entitlementStatus"]> = ["LOCKED", "UNLOCKED", "HELD_IN_REVIEW"];
export const pathsApiV1QueuesStateMismatchGetResponses200ContentApplicationJsonItemsProviderValues: ReadonlyArray<FlattenedDeepRequired<paths>["/api/v1/queues/state-mismatch"]["get"]["responses"]["200"]["content"]["application/json"]["items"]["provider"]> = ["paystack", "stripe", "flutterwave", "mpesa"];
export const pathsApiV1QueuesStateMismatchGetResponses200ContentApplicationJsonItemsStateValues: ReadonlyArray<FlattenedDeepRequired<paths>["/api/v1/queues/state-mismatch"]["get"]["responses"]["200"]["content"]["application/json"]["items"]["state"]> = ["PENDING", "RECOVERING", "MANUAL_REVIEW", "SETTLED_CONSENSUS", "FAILED_DECLINED", "STATE_MISMATCH"];
export const pathsApiV1QueuesStateMismatchGetResponses200ContentApplicationJsonItemsEntitlementStatusValues: ReadonlyArray<FlattenedDeepRequired<paths>["/api/v1/queues/state-mismatch"]["get"]["responses"]["200"]["content"]["application/json"]["items"]["entitlementStatus"]> = ["LOCKED", "UNLOCKED", "HELD_IN_REVIEW"];
export const pathsApiV1QueuesDisputesGetResponses200ContentApplicationJsonItemsProviderValues: ReadonlyArray<FlattenedDeepRequired<paths>["/api/v1/queues/disputes"]["get"]["responses"]["200"]["content"]["application/json"]["items"]["provider"]> = ["paystack", "stripe", "flutterwave", "mpesa"];
export const pathsApiV1QueuesDisputesGetResponses200ContentApplicationJsonItemsStateValues: ReadonlyArray<FlattenedDeepRequired<paths>["/api/v1/queues/disputes"]["get"]["responses"]["200"]["content"]["application/json"]["items"]["state"]> = ["PENDING", "RECOVERING", "MANUAL_REVIEW", "SETTLED_CONSENSUS", "FAILED_DECLINED", "STATE_MISMATCH"];
export const pathsApiV1QueuesDisputesGetResponses200ContentApplicationJsonItemsEntitlementStatusValues: ReadonlyArray<FlattenedDeepRequired<paths>["/api/v1/queues/disputes"]["get"]["responses"]["200"]["content"]["application/json"]["items"]["entitlementStatus"]> = ["LOCKED", "UNLOCKED", "HELD_IN_REVIEW"];
export const pathsApiV1QueuesDisputesGetResponses200ContentApplicationJsonItemsMoneyStateValues: ReadonlyArray<FlattenedDeepRequired<paths>["/api/v1/queues/disputes"]["get"]["responses"]["200"]["content"]["application/json"]["items"]["moneyState"]> = ["none", "partially_refunded", "refunded", "reversed", "disputed", "charged_back"];
export const pathsApiV1QueuesUnmatchedPaymentsGetResponses200ContentApplicationJsonItemsProviderValues: ReadonlyArray<FlattenedDeepRequired<paths>["/api/v1/queues/unmatched-payments"]["get"]["responses"]["200"]["content"]["application/json"]["items"]["provider"]> = ["paystack", "stripe", "flutterwave", "mpesa"];
export const pathsApiV1OverviewGetResponses200ContentApplicationJsonDeadLetteredMessagesOneOf0StatusValues: ReadonlyArray<Extract<FlattenedDeepRequired<paths>["/api/v1/overview"]["get"]["responses"]["200"]["content"]["application/json"]["deadLetteredMessages"], {
    status: unknown;
}>["status"]> = ["ok"];
export const pathsApiV1OverviewGetResponses200ContentApplicationJsonDeadLetteredMessagesOneOf0TopicsKindValues: ReadonlyArray<Extract<Extract<FlattenedDeepRequired<paths>["/api/v1/overview"]["get"]["responses"]["200"]["content"]["application/json"]["deadLetteredMessages"], {
    topics: unknown;
}>["topics"], {
    kind: unknown;
}>["kind"]> = ["messages", "deliveries"];
export const pathsApiV1OverviewGetResponses200ContentApplicationJsonDeadLetteredMessagesOneOf1StatusValues: ReadonlyArray<Extract<FlattenedDeepRequired<paths>["/api/v1/overview"]["get"]["responses"]["200"]["content"]["application/json"]["deadLetteredMessages"], {
    status: unknown;
}>["status"]> = ["unavailable"];
export const pathsApiV1OverviewGetResponses200ContentApplicationJsonDeadLetteredMessagesOneOf1CodeValues: ReadonlyArray<Extract<FlattenedDeepRequired<paths>["/api/v1/overview"]["get"]["responses"]["200"]["content"]["application/json"]["deadLetteredMessages"], {
    code: unknown;
}>["code"]> = ["CONSOLE.KAFKA_UNAVAILABLE"];
export const pathsApiV1OverviewGetResponses200ContentApplicationJsonDeadLetteredMessagesOneOf2StatusValues: ReadonlyArray<Extract<FlattenedDeepRequired<paths>["/api/v1/overview"]["get"]["responses"]["200"]["content"]["application/json"]["deadLetteredMessages"], {
    status: unknown;
}>["status"]> = ["not_configured"];
export const pathsApiV1OverviewGetResponses200ContentApplicationJsonConsumerLagOneOf0StatusValues: ReadonlyArray<Extract<FlattenedDeepRequired<paths>["/api/v1/overview"]["get"]["responses"]["200"]["content"]["application/json"]["consumerLag"], {
    status: unknown;
}>["status"]> = ["ok"];
export const pathsApiV1OverviewGetResponses200ContentApplicationJsonConsumerLagOneOf1StatusValues: ReadonlyArray<Extract<FlattenedDeepRequired<paths>["/api/v1/overview"]["get"]["responses"]["200"]["content"]["application/json"]["consumerLag"], {
    status: unknown;
}>["status"]> = ["unavailable"];
export const pathsApiV1OverviewGetResponses200ContentApplicationJsonConsumerLagOneOf1CodeValues: ReadonlyArray<Extract<FlattenedDeepRequired<paths>["/api/v1/overview"]["get"]["responses"]["200"]["content"]["application/json"]["consumerLag"], {
    code: unknown;
}>["code"]> = ["CONSOLE.KAFKA_UNAVAILABLE"];
export const pathsApiV1OverviewGetResponses200ContentApplicationJsonConsumerLagOneOf2StatusValues: ReadonlyArray<Extract<FlattenedDeepRequired<paths>["/api/v1/overview"]["get"]["responses"]["200"]["content"]["application/json"]["consumerLag"], {
    status: unknown;
}>["status"]> = ["not_configured"];
export const pathsApiV1OverviewGetResponses200ContentApplicationJsonLedgerChainsOneOf0StatusValues: ReadonlyArray<Extract<FlattenedDeepRequired<paths>["/api/v1/overview"]["get"]["responses"]["200"]["content"]["application/json"]["ledgerChains"], {
    status: unknown;
}>["status"]> = ["verified"];
export const pathsApiV1OverviewGetResponses200ContentApplicationJsonLedgerChainsOneOf0CheckpointsOneOf0StatusValues: ReadonlyArray<Extract<Extract<FlattenedDeepRequired<paths>["/api/v1/overview"]["get"]["responses"]["200"]["content"]["application/json"]["ledgerChains"], {
    checkpoints: unknown;
}>["checkpoints"], {
    status: unknown;
}>["status"]> = ["checked"];
export const pathsApiV1OverviewGetResponses200ContentApplicationJsonLedgerChainsOneOf0CheckpointsOneOf1StatusValues: ReadonlyArray<Extract<Extract<FlattenedDeepRequired<paths>["/api/v1/overview"]["get"]["responses"]["200"]["content"]["application/json"]["ledgerChains"], {
    checkpoints: unknown;
}>["checkpoints"], {
    status: unknown;
}>["status"]> = ["not_checked"];
export const pathsApiV1OverviewGetResponses200ContentApplicationJsonLedgerChainsOneOf1StatusValues: ReadonlyArray<Extract<FlattenedDeepRequired<paths>["/api/v1/overview"]["get"]["responses"]["200"]["content"]["application/json"]["ledgerChains"], {
    status: unknown;
}>["status"]> = ["broken"];
export const pathsApiV1OverviewGetResponses200ContentApplicationJsonLedgerChainsOneOf2StatusValues: ReadonlyArray<Extract<FlattenedDeepRequired<paths>["/api/v1/overview"]["get"]["responses"]["200"]["content"]["application/json"]["ledgerChains"], {
    status: unknown;
}>["status"]> = ["pending"];
export const pathsApiV1OverviewGetResponses200ContentApplicationJsonLedgerChainsOneOf3StatusValues: ReadonlyArray<Extract<FlattenedDeepRequired<paths>["/api/v1/overview"]["get"]["responses"]["200"]["content"]["application/json"]["ledgerChains"], {
    status: unknown;
}>["status"]> = ["not_applicable"];
export const pathsApiV1EndpointsIdGetResponses200ContentApplicationJsonRecentDeliveriesStateValues: ReadonlyArray<FlattenedDeepRequired<paths>["/api/v1/endpoints/{id}"]["get"]["responses"]["200"]["content"]["application/json"]["recentDeliveries"]["state"]> = ["pending", "delivered", "failed", "cancelled"];
export const pathsApiV1DeliveriesGetParametersQueryStateValues: ReadonlyArray<FlattenedDeepRequired<paths>["/api/v1/deliveries"]["get"]["parameters"]["query"]["state"]> = ["pending", "delivered", "failed", "cancelled"];
export const pathsApiV1DeliveriesGetResponses200ContentApplicationJsonItemsStateValues: ReadonlyArray<FlattenedDeepRequired<paths>["/api/v1/deliveries"]["get"]["responses"]["200"]["content"]["application/json"]["items"]["state"]> = ["pending", "delivered", "failed", "cancelled"];
export const pathsApiV1EventsEventIdDeliveriesGetResponses200ContentApplicationJsonDeliveriesStateValues: ReadonlyArray<FlattenedDeepRequired<paths>["/api/v1/events/{eventId}/deliveries"]["get"]["responses"]["200"]["content"]["application/json"]["deliveries"]["state"]> = ["pending", "delivered", "failed", "cancelled"];
export const pathsApiV1ReconciliationRunsGetParametersQueryProviderValues: ReadonlyArray<FlattenedDeepRequired<paths>["/api/v1/reconciliation/runs"]["get"]["parameters"]["query"]["provider"]> = ["paystack", "stripe", "flutterwave", "mpesa"];
export const pathsApiV1ReconciliationRunsGetResponses200ContentApplicationJsonItemsProviderValues: ReadonlyArray<FlattenedDeepRequired<paths>["/api/v1/reconciliation/runs"]["get"]["responses"]["200"]["content"]["application/json"]["items"]["provider"]> = ["paystack", "stripe", "flutterwave", "mpesa"];
export const pathsApiV1ReconciliationRunsGetResponses200ContentApplicationJsonItemsKindValues: ReadonlyArray<FlattenedDeepRequired<paths>["/api/v1/reconciliation/runs"]["get"]["responses"]["200"]["content"]["application/json"]["items"]["kind"]> = ["incremental", "daily", "on_demand"];
export const pathsApiV1ReconciliationRunsGetResponses200ContentApplicationJsonItemsStatusValues: ReadonlyArray<FlattenedDeepRequired<paths>["/api/v1/reconciliation/runs"]["get"]["responses"]["200"]["content"]["application/json"]["items"]["status"]> = ["started", "progressed", "completed", "failed"];
export const pathsApiV1ReconciliationRunsPostRequestBodyContentApplicationJsonProviderValues: ReadonlyArray<FlattenedDeepRequired<paths>["/api/v1/reconciliation/runs"]["post"]["requestBody"]["content"]["application/json"]["provider"]> = ["paystack", "stripe", "flutterwave", "mpesa"];
export const pathsApiV1ReconciliationRunsPostResponses202ContentApplicationJsonStatusValues: ReadonlyArray<FlattenedDeepRequired<paths>["/api/v1/reconciliation/runs"]["post"]["responses"]["202"]["content"]["application/json"]["status"]> = ["requested"];
export const pathsApiV1ReconciliationRunsRunIdGetResponses200ContentApplicationJsonProviderValues: ReadonlyArray<FlattenedDeepRequired<paths>["/api/v1/reconciliation/runs/{runId}"]["get"]["responses"]["200"]["content"]["application/json"]["provider"]> = ["paystack", "stripe", "flutterwave", "mpesa"];
export const pathsApiV1ReconciliationRunsRunIdGetResponses200ContentApplicationJsonKindValues: ReadonlyArray<FlattenedDeepRequired<paths>["/api/v1/reconciliation/runs/{runId}"]["get"]["responses"]["200"]["content"]["application/json"]["kind"]> = ["incremental", "daily", "on_demand"];
export const pathsApiV1ReconciliationRunsRunIdGetResponses200ContentApplicationJsonStatusValues: ReadonlyArray<FlattenedDeepRequired<paths>["/api/v1/reconciliation/runs/{runId}"]["get"]["responses"]["200"]["content"]["application/json"]["status"]> = ["started", "progressed", "completed", "failed"];
export const pathsApiV1ReconciliationExceptionsGetParametersQueryStatusValues: ReadonlyArray<FlattenedDeepRequired<paths>["/api/v1/reconciliation/exceptions"]["get"]["parameters"]["query"]["status"]> = ["open", "resolved"];
export const pathsApiV1ReconciliationExceptionsGetParametersQueryClassValues: ReadonlyArray<FlattenedDeepRequired<paths>["/api/v1/reconciliation/exceptions"]["get"]["parameters"]["query"]["class"]> = ["settled_not_successful", "terms_differ", "possible_duplicate", "stuck", "unknown_to_settle"];
export const pathsApiV1ReconciliationExceptionsGetParametersQueryProviderValues: ReadonlyArray<FlattenedDeepRequired<paths>["/api/v1/reconciliation/exceptions"]["get"]["parameters"]["query"]["provider"]> = ["paystack", "stripe", "flutterwave", "mpesa"];
export const pathsApiV1ReconciliationExceptionsGetParametersQueryFormatValues: ReadonlyArray<FlattenedDeepRequired<paths>["/api/v1/reconciliation/exceptions"]["get"]["parameters"]["query"]["format"]> = ["json", "csv"];
export const pathsApiV1ReconciliationExceptionsGetResponses200ContentApplicationJsonItemsProviderValues: ReadonlyArray<FlattenedDeepRequired<paths>["/api/v1/reconciliation/exceptions"]["get"]["responses"]["200"]["content"]["application/json"]["items"]["provider"]> = ["paystack", "stripe", "flutterwave", "mpesa"];
export const pathsApiV1ReconciliationExceptionsGetResponses200ContentApplicationJsonItemsClassValues: ReadonlyArray<FlattenedDeepRequired<paths>["/api/v1/reconciliation/exceptions"]["get"]["responses"]["200"]["content"]["application/json"]["items"]["class"]> = ["settled_not_successful", "terms_differ", "possible_duplicate", "stuck", "unknown_to_settle"];
export const pathsApiV1ReconciliationExceptionsGetResponses200ContentApplicationJsonItemsStatusValues: ReadonlyArray<FlattenedDeepRequired<paths>["/api/v1/reconciliation/exceptions"]["get"]["responses"]["200"]["content"]["application/json"]["items"]["status"]> = ["open", "resolved"];
export const pathsApiV1ReconciliationExceptionsGetResponses200ContentTextCsvItemsProviderValues: ReadonlyArray<FlattenedDeepRequired<paths>["/api/v1/reconciliation/exceptions"]["get"]["responses"]["200"]["content"]["text/csv"]["items"]["provider"]> = ["paystack", "stripe", "flutterwave", "mpesa"];
export const pathsApiV1ReconciliationExceptionsGetResponses200ContentTextCsvItemsClassValues: ReadonlyArray<FlattenedDeepRequired<paths>["/api/v1/reconciliation/exceptions"]["get"]["responses"]["200"]["content"]["text/csv"]["items"]["class"]> = ["settled_not_successful", "terms_differ", "possible_duplicate", "stuck", "unknown_to_settle"];
export const pathsApiV1ReconciliationExceptionsGetResponses200ContentTextCsvItemsStatusValues: ReadonlyArray<FlattenedDeepRequired<paths>["/api/v1/reconciliation/exceptions"]["get"]["responses"]["200"]["content"]["text/csv"]["items"]["status"]> = ["open", "resolved"];
export const pathsApiV1ReconciliationExceptionsExceptionIdResolvePostResponses202ContentApplicationJsonStatusValues: ReadonlyArray<FlattenedDeepRequired<paths>["/api/v1/reconciliation/exceptions/{exceptionId}/resolve"]["post"]["responses"]["202"]["content"]["application/json"]["status"]> = ["resolving"];
export const pathsApiV1AuditGetParametersQueryTargetKindValues: ReadonlyArray<FlattenedDeepRequired<paths>["/api/v1/audit"]["get"]["parameters"]["query"]["targetKind"]> = ["transaction", "event", "endpoint", "user", "proposal", "unmatched_payment", "provider", "reconciliation_exception"];
export const pathsApiV1AuditGetResponses200ContentApplicationJsonItemsActionValues: ReadonlyArray<FlattenedDeepRequired<paths>["/api/v1/audit"]["get"]["responses"]["200"]["content"]["application/json"]["items"]["action"]> = ["transaction.reconcile", "delivery.resend", "endpoint.recover", "endpoint.enable", "endpoint.disable", "user.create", "user.update", "proposal.create", "proposal.approve", "proposal.reject", "unmatched_payment.close", "reconciliation.run_start", "reconciliation_exception.resolve", "state_mismatch.refund_due"];
export const pathsApiV1AuditGetResponses200ContentApplicationJsonItemsTargetKindValues: ReadonlyArray<FlattenedDeepRequired<paths>["/api/v1/audit"]["get"]["responses"]["200"]["content"]["application/json"]["items"]["target"]["kind"]> = ["transaction", "event", "endpoint", "user", "proposal", "unmatched_payment", "provider", "reconciliation_exception"];
export const pathsApiV1AuditGetResponses200ContentApplicationJsonItemsOutcomeValues: ReadonlyArray<FlattenedDeepRequired<paths>["/api/v1/audit"]["get"]["responses"]["200"]["content"]["application/json"]["items"]["outcome"]> = ["succeeded", "failed"];
export const pathsApiV1UsersGetResponses200ContentApplicationJsonItemsRoleValues: ReadonlyArray<FlattenedDeepRequired<paths>["/api/v1/users"]["get"]["responses"]["200"]["content"]["application/json"]["items"]["role"]> = ["viewer", "operator", "admin"];
export const pathsApiV1UsersPostRequestBodyContentApplicationJsonRoleValues: ReadonlyArray<FlattenedDeepRequired<paths>["/api/v1/users"]["post"]["requestBody"]["content"]["application/json"]["role"]> = ["viewer", "operator", "admin"];
export const pathsApiV1UsersPostResponses201ContentApplicationJsonUserRoleValues: ReadonlyArray<FlattenedDeepRequired<paths>["/api/v1/users"]["post"]["responses"]["201"]["content"]["application/json"]["user"]["role"]> = ["viewer", "operator", "admin"];
export const pathsApiV1UsersEmailPatchRequestBodyContentApplicationJsonRoleValues: ReadonlyArray<FlattenedDeepRequired<paths>["/api/v1/users/{email}"]["patch"]["requestBody"]["content"]["application/json"]["role"]> = ["viewer", "operator", "admin"];
export const pathsApiV1UsersEmailPatchResponses200ContentApplicationJsonRoleValues: ReadonlyArray<FlattenedDeepRequired<paths>["/api/v1/users/{email}"]["patch"]["responses"]["200"]["content"]["application/json"]["role"]> = ["viewer", "operator", "admin"];
export const pathsApiV1UsersEmailPasswordPostResponses200ContentApplicationJsonUserRoleValues: ReadonlyArray<FlattenedDeepRequired<paths>["/api/v1/users/{email}/password"]["post"]["responses"]["200"]["content"]["application/json"]["user"]["role"]> = ["viewer", "operator", "admin"];
export const pathsApiV1UnmatchedPaymentsReferenceMatchProposalsPostResponses201ContentApplicationJsonStatusValues: ReadonlyArray<FlattenedDeepRequired<paths>["/api/v1/unmatched-payments/{reference}/match-proposals"]["post"]["responses"]["201"]["content"]["application/json"]["status"]> = ["pending", "approved", "rejected", "expired"];
export const pathsApiV1TransactionsReferenceAcceptAsPaidProposalsPostResponses201ContentApplicationJsonStatusValues: ReadonlyArray<FlattenedDeepRequired<paths>["/api/v1/transactions/{reference}/accept-as-paid-proposals"]["post"]["responses"]["201"]["content"]["application/json"]["status"]> = ["pending", "approved", "rejected", "expired"];
export const pathsApiV1ProposalsGetResponses200ContentApplicationJsonItemsStatusValues: ReadonlyArray<FlattenedDeepRequired<paths>["/api/v1/proposals"]["get"]["responses"]["200"]["content"]["application/json"]["items"]["status"]> = ["pending", "approved", "rejected", "expired"];
export const pathsApiV1ProposalsIdGetResponses200ContentApplicationJsonStatusValues: ReadonlyArray<FlattenedDeepRequired<paths>["/api/v1/proposals/{id}"]["get"]["responses"]["200"]["content"]["application/json"]["status"]> = ["pending", "approved", "rejected", "expired"];
export const pathsApiV1ProposalsIdApprovePostResponses200ContentApplicationJsonProposalStatusValues: ReadonlyArray<FlattenedDeepRequired<paths>["/api/v1/proposals/{id}/approve"]["post"]["responses"]["200"]["content"]["application/json"]["proposal"]["status"]> = ["pending", "approved", "rejected", "expired"];
export const pathsApiV1ProposalsIdRejectPostResponses200ContentApplicationJsonStatusValues: ReadonlyArray<FlattenedDeepRequired<paths>["/api/v1/proposals/{id}/reject"]["post"]["responses"]["200"]["content"]["application/json"]["status"]> = ["pending", "approved", "rejected", "expired"];
export const pathsApiV1PrivacyErasuresPostRequestBodyContentApplicationJsonSubjectKindValues: ReadonlyArray<FlattenedDeepRequired<paths>["/api/v1/privacy/erasures"]["post"]["requestBody"]["content"]["application/json"]["subject"]["kind"]> = ["user", "customer"];
export const pathsApiV1PrivacyErasuresPostResponses201ContentApplicationJsonStatusValues: ReadonlyArray<FlattenedDeepRequired<paths>["/api/v1/privacy/erasures"]["post"]["responses"]["201"]["content"]["application/json"]["status"]> = ["pending", "approved", "rejected", "expired"];
export const pathsApiV1UnmatchedPaymentsReferenceClosePostRequestBodyContentApplicationJsonReasonValues: ReadonlyArray<FlattenedDeepRequired<paths>["/api/v1/unmatched-payments/{reference}/close"]["post"]["requestBody"]["content"]["application/json"]["reason"]> = ["refunded_outside_settle", "test_payment", "not_ours"];
export const pathsApiV1UnmatchedPaymentsReferenceClosePostResponses202ContentApplicationJsonStatusValues: ReadonlyArray<FlattenedDeepRequired<paths>["/api/v1/unmatched-payments/{reference}/close"]["post"]["responses"]["202"]["content"]["application/json"]["status"]> = ["closing"];
export const pathsApiV1TransactionsReferenceCloseRefundDuePostResponses202ContentApplicationJsonStatusValues: ReadonlyArray<FlattenedDeepRequired<paths>["/api/v1/transactions/{reference}/close-refund-due"]["post"]["responses"]["202"]["content"]["application/json"]["status"]> = ["closing"];
