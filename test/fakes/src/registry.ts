import { SOURCE_NAMES } from '../../../dist/systems/registry.js';
import { fake as discord } from './discord.js';
import { fake as sendbird } from './sendbird.js';
import { fake as slack } from './slack.js';
import { fake as stream } from './stream.js';
import { fake as twilio } from './twilio.js';
import type { FakeSource } from './types.js';

/** A fake for each live source `pull` reads: the product's list of them, so a new source needs one here. */
export const FAKE_SOURCE_NAMES = SOURCE_NAMES;
export type FakeSourceName = (typeof FAKE_SOURCE_NAMES)[number];

export const FAKES: Record<FakeSourceName, FakeSource> = { sendbird, stream, twilio, slack, discord };
