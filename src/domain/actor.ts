// Who made a change: a member of the account (portal), an API key, the operator's qrm command, or a system acting on
// its own (Stripe's billing webhook).
export interface Actor {
  type: 'member' | 'api_key' | 'operator' | 'system';
  /** The member's, the key's, the operator's (`qrm`) or the system's id (`stripe`). */
  id: string;
  /** What a reader recognises: the member's e-mail, the key's hint, `qrm`, or `Stripe webhook`. Never a secret. */
  label: string;
}

/** The operator at the command line. */
export const OPERATOR_ACTOR: Actor = { type: 'operator', id: 'qrm', label: 'qrm' };

/** Stripe, through its signed billing webhook: a plan it changes is recorded with this actor. */
export const STRIPE_ACTOR: Actor = { type: 'system', id: 'stripe', label: 'Stripe webhook' };

export const ACTOR_TYPES = ['member', 'api_key', 'operator', 'system'] as const satisfies ReadonlyArray<Actor['type']>;
