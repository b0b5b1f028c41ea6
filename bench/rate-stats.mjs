// What the sandbox's stats say about a run: achieved rate, 429s, full requests, arrivals.
const ENTITIES = ['users', 'groups', 'members', 'messages'];

/**
 * Achieved requests a minute, from the sandbox's own clock: over the whole run ((N-1) gaps between
 * the first and last arrival) and over a steady window (the middle 80% of the run, from the
 * bench's samples of the request counter), plus how long the rate took to reach 97% of the limit.
 */
export function analyseRate(stats, samples, limit) {
  const first = stats.firstRequestAt;
  const last = stats.lastRequestAt;
  const spanMs = Math.max(1, last - first);
  const requests = stats.requests;
  const overallRpm = ((requests - 1) / spanMs) * 60_000;
  const from = first + spanMs * 0.1;
  const to = last - spanMs * 0.1;
  const inside = samples.filter((s) => s.t >= from && s.t <= to);
  let steadyRpm = overallRpm;
  if (inside.length >= 2) {
    const a = inside[0];
    const b = inside[inside.length - 1];
    steadyRpm = ((b.requests - a.requests) / (b.t - a.t)) * 60_000;
  }
  // Rate over a sliding 5-second span of samples, for the time the tool took to reach its ceiling.
  let secondsTo97;
  for (let i = 0, j = 0; i < samples.length; i++) {
    while (j < i && samples[i].t - samples[j].t > 5000) j++;
    if (samples[i].t - samples[j].t < 4000) continue;
    const rpm = ((samples[i].requests - samples[j].requests) / (samples[i].t - samples[j].t)) * 60_000;
    if (rpm >= 0.97 * limit) {
      secondsTo97 = (samples[i].t - first) / 1000;
      break;
    }
  }
  return {
    requests,
    seconds: spanMs / 1000,
    overallRpm,
    steadyRpm,
    secondsTo97,
    status429: stats.byStatus['429'] ?? 0,
    rateLimited: stats.rateLimited,
    byStatus: stats.byStatus,
  };
}

/**
 * Requests carrying the full 50 records, leaving out each entity's one allowed short batch (the
 * last of its phase: every data set here has one file per entity).
 */
export function fullRequests(stats, batchSize = 50) {
  let full = 0;
  let counted = 0;
  let excused = 0;
  for (const e of ENTITIES) {
    const s = stats.perEntity[e];
    const short = s.requests - s.fullRequests;
    const excuse = Math.min(short, s.requests > 0 && s.recordsReceived % batchSize !== 0 ? 1 : 0);
    excused += excuse;
    full += s.fullRequests;
    counted += s.requests - excuse;
  }
  return { full, counted, excused, ratio: counted === 0 ? 1 : full / counted };
}

/** Each generated record stored once: stored = generated, nothing already there, nothing refused. */
export function verifyArrivals(stats, params) {
  const bad = [];
  let stored = 0;
  let expected = 0;
  let again = 0;
  let rejected = 0;
  for (const e of ENTITIES) {
    const s = stats.perEntity[e];
    stored += s.stored;
    expected += params[e];
    again += s.alreadyExists;
    rejected += s.rejected;
    if (s.stored !== params[e] || s.alreadyExists !== 0 || s.rejected !== 0) {
      bad.push(`${e}: stored ${s.stored}/${params[e]}, already ${s.alreadyExists}, rejected ${s.rejected}`);
    }
  }
  const text =
    bad.length === 0
      ? `${stored.toLocaleString('en-US')}/${expected.toLocaleString('en-US')} stored, ` +
        `${again} again, ${rejected} rejected`
      : bad.join('; ');
  return { ok: bad.length === 0, text };
}
