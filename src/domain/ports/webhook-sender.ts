// Port: sends one webhook request to a caller's URL.

/**
 * Contract: resolves with the response status when the target answered; throws when it could not be
 * reached, or when the target is not allowed (a private or loopback address, unless the operator allows them).
 */
export interface WebhookSender {
  send(url: string, headers: Record<string, string>, body: string): Promise<number>;
}
