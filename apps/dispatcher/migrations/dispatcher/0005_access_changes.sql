-- Access follows the money (docs/delivery.md, "Access follows the money"): revocations and
-- reinstatements are delivered as subscription_revoked and subscription_reinstated. An endpoint
-- registered with every kind there was (both grant kinds: the default, or a choice of all of
-- them) receives the new kinds too, since a backend that applies grants but never revocations
-- would keep access that was paid back. An endpoint that chose one grant kind alone keeps its
-- choice; an admin adds the kinds with PATCH /v1/admin/endpoints/{id}.

-- Up Migration

UPDATE dispatcher.endpoints
   SET event_kinds = event_kinds || ARRAY['subscription_revoked', 'subscription_reinstated']
 WHERE event_kinds @> ARRAY['subscription_started', 'subscription_renewed']
   AND NOT event_kinds && ARRAY['subscription_revoked', 'subscription_reinstated'];
