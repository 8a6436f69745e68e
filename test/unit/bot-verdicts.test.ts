// The redirect's bot check: isbot's own verdict for every user agent, remembered for a bounded number of them.
import { isbot } from 'isbot';
import { describe, expect, it } from 'vitest';
import { BOT_VERDICTS_KEPT, BotVerdicts } from '../../src/http/redirect/bot-verdicts.js';
import { BOT_AGENTS, USER_AGENTS } from '../helpers/codes.js';

describe('BotVerdicts', () => {
  it("gives isbot's verdict, the first time and every time after", () => {
    const verdicts = new BotVerdicts();
    const agents = [...Object.values(BOT_AGENTS), ...Object.values(USER_AGENTS), 'curl/8.5.0', '', undefined];
    for (let round = 0; round < 3; round++) {
      for (const agent of agents) expect(verdicts.isBot(agent), String(agent)).toBe(isbot(agent));
    }
    expect(Object.values(BOT_AGENTS).every((agent) => verdicts.isBot(agent))).toBe(true);
    expect(Object.values(USER_AGENTS).some((agent) => verdicts.isBot(agent))).toBe(false);
  });

  it('remembers at most BOT_VERDICTS_KEPT user agents, however many it is asked about', () => {
    const verdicts = new BotVerdicts();
    const phone = (i: number) => `Mozilla/5.0 (Linux; Android 14; Model ${i}) Mobile Safari/537.36`;
    for (let i = 0; i < BOT_VERDICTS_KEPT * 3; i++) verdicts.isBot(phone(i));
    expect(verdicts.remembered).toBe(BOT_VERDICTS_KEPT);
    expect(verdicts.isBot(BOT_AGENTS.slack)).toBe(true);
  });
});
