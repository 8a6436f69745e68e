// Uploads in flight per owner (an API key, a portal session, a client address): taken before a body is read, given back
// when its answer ends.

/**
 * A body that may be large: declared over this many bytes, or of unknown length (chunked). Smaller bodies are not
 * uploads.
 */
export const UPLOAD_MIN_BYTES = 64 * 1024;

/** Counts in this process only: what an upload holds (its buffer, its socket) is held by this process. */
export class UploadSlots {
  readonly #held = new Map<string, number>();
  #uploads = 0;

  /**
   * One slot for each owner with a cap (0: no cap), all or none: the release function, or undefined when an owner is at
   * its
   * cap. The release gives the slots back once, however often it is called.
   */
  take(owners: ReadonlyArray<{ key: string; cap: number }>): (() => void) | undefined {
    const capped = owners.filter((owner) => owner.cap > 0);
    if (capped.some((owner) => (this.#held.get(owner.key) ?? 0) >= owner.cap)) return undefined;
    for (const owner of capped) this.#held.set(owner.key, (this.#held.get(owner.key) ?? 0) + 1);
    this.#uploads++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#uploads--;
      for (const owner of capped) {
        const left = (this.#held.get(owner.key) ?? 1) - 1;
        if (left > 0) this.#held.set(owner.key, left);
        else this.#held.delete(owner.key);
      }
    };
  }

  /** Uploads holding their slots now (the qrm_uploads_in_flight metric). */
  held(): number {
    return this.#uploads;
  }
}
