// Whether a user agent is a crawler or link preview (isbot), remembered for the user agents seen most recently.
import { isbot } from 'isbot';
import { LRUCache } from 'lru-cache';

/** User agents remembered: scans repeat a few hundred phone browsers, and each entry is at most 512 characters. */
export const BOT_VERDICTS_KEPT = 2_000;

/** isbot tests one large regular expression per call; a user agent seen again gets the verdict it got before. */
export class BotVerdicts {
  readonly #verdicts = new LRUCache<string, boolean>({ max: BOT_VERDICTS_KEPT });

  isBot(userAgent: string | undefined): boolean {
    if (userAgent === undefined) return isbot(userAgent);
    const known = this.#verdicts.get(userAgent);
    if (known !== undefined) return known;
    const verdict = isbot(userAgent);
    this.#verdicts.set(userAgent, verdict);
    return verdict;
  }

  /** How many user agents are remembered now: never more than BOT_VERDICTS_KEPT. */
  get remembered(): number {
    return this.#verdicts.size;
  }
}
