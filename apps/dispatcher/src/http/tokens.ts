/** Injection tokens of the dispatcher's admin API. */
export const ADMIN_KEYS = Symbol('AdminApiKeySha256');
export const ENDPOINT_SERVICE = Symbol('EndpointService');
export const DELIVERY_ADMIN = Symbol('DeliveryAdmin');
export const RECEIPT_KEYS = Symbol('ReceiptApiKeySha256');
export const RECEIPT_PROOFS = Symbol('ReceiptProofs');
