import { CONSENSUS_CHECK_NAMES, ENTITLEMENT_STATUSES, PROVIDERS, TRANSACTION_STATUSES } from '@settle/domain';
import { describe, expect, it } from 'vitest';
import { DELIVERY_STATES } from '../../src/deliveries/delivery-admin.port';
import * as contract from '../src/api/types';

// The web app knows Settle only through the console API; its copies of the closed lists must
// stay those of libs/domain, or filters and badges would miss a state.
describe('the console web app lists', () => {
  it('are the domain lists, in the same order', () => {
    expect(contract.STATES).toEqual(TRANSACTION_STATUSES);
    expect(contract.ENTITLEMENT_STATUSES).toEqual(ENTITLEMENT_STATUSES);
    expect(contract.PROVIDERS).toEqual(PROVIDERS);
    expect(contract.CHECK_NAMES).toEqual(CONSENSUS_CHECK_NAMES);
  });

  it("keep the console API's delivery states", () => {
    expect(contract.DELIVERY_STATES).toEqual(DELIVERY_STATES);
  });
});
