// Who made a change: a member of the account (portal), an API key, or the operator's qrm command.
export interface Actor {
  type: 'member' | 'api_key' | 'operator';
  /** The member's, the key's or the operator's id (`qrm`). */
  id: string;
  /** What a reader recognises: the member's e-mail, the key's hint, or `qrm`. Never a secret. */
  label: string;
}

/** The operator at the command line. */
export const OPERATOR_ACTOR: Actor = { type: 'operator', id: 'qrm', label: 'qrm' };

export const ACTOR_TYPES = ['member', 'api_key', 'operator'] as const satisfies ReadonlyArray<Actor['type']>;
