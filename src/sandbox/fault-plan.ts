import type { ResolvedFaults } from './sandbox-options.js';

const percent = (p: number) => `${Math.round(p * 1000) / 10}%`;

/**
 * The faults a sandbox injects, one phrase each, for its start-up banner: a trial that meets 500s
 * should say it asked for them. Empty when it injects none.
 */
export function describeFaults(f: ResolvedFaults): string[] {
  const phrases: string[] = [];
  if (f.fail500BeforeStore > 0) phrases.push(`500 before storing ${percent(f.fail500BeforeStore)}`);
  if (f.fail500AfterStore > 0) phrases.push(`500 after storing ${percent(f.fail500AfterStore)}`);
  if (f.dropConnection > 0) phrases.push(`dropped connections ${percent(f.dropConnection)}`);
  if (f.spurious429 > 0) phrases.push(`spurious 429 ${percent(f.spurious429)}`);
  if (f.slowRate > 0) phrases.push(`slow answers (${f.slowMs} ms) ${percent(f.slowRate)}`);
  if (f.poison) phrases.push(`poison ids /${f.poison.source}/`);
  if (f.loseShare > 0) phrases.push(`records lost ${percent(f.loseShare)}`);
  if (f.losePattern) phrases.push(`records lost matching /${f.losePattern.source}/`);
  return phrases;
}

/** mulberry32: tiny, fast, and good enough to spread faults; the point is reproducibility, not quality. */
export function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** The faults chosen for one accepted request. */
export interface FaultDraw {
  drop: boolean;
  spurious429: boolean;
  fail500BeforeStore: boolean;
  slow: boolean;
  fail500AfterStore: boolean;
}

/**
 * Draws the faults of each request. Every request consumes exactly five numbers whatever the
 * probabilities, so changing one probability does not reshuffle which requests meet the others.
 * Jitter has its own stream for the same reason: a latency setting must not move the faults.
 */
export class FaultPlan {
  private faultRandom: () => number;
  private jitterRandom: () => number;

  constructor(
    private readonly faults: ResolvedFaults,
    private readonly seed: number,
  ) {
    this.faultRandom = mulberry32(seed);
    this.jitterRandom = mulberry32(seed ^ 0x9e3779b9);
  }

  reset(): void {
    this.faultRandom = mulberry32(this.seed);
    this.jitterRandom = mulberry32(this.seed ^ 0x9e3779b9);
  }

  /** In the documented order: drop, spurious429, fail500BeforeStore, slow; then fail500AfterStore. */
  draw(): FaultDraw {
    const f = this.faults;
    const next = this.faultRandom;
    return {
      drop: next() < f.dropConnection,
      spurious429: next() < f.spurious429,
      fail500BeforeStore: next() < f.fail500BeforeStore,
      slow: next() < f.slowRate,
      fail500AfterStore: next() < f.fail500AfterStore,
    };
  }

  get slowMs(): number {
    return this.faults.slowMs;
  }

  /** Latency within +-10 % of the base, so concurrent answers do not arrive in lockstep. */
  jitter(latencyMs: number): number {
    if (latencyMs <= 0) return 0;
    return Math.round(latencyMs * (0.9 + 0.2 * this.jitterRandom()));
  }

  isPoison(key: string): boolean {
    return this.faults.poison?.test(key) ?? false;
  }
}
