import { PerformanceObserver } from 'node:perf_hooks';
import v8 from 'node:v8';

/** Young generation (both semi-spaces) at which its growth stops: V8's default cap is 32. */
const YOUNG_GENERATION_CAP = 8 * 1024 * 1024;

/**
 * Keeps V8's heap close to what a run holds live, so a million-message import or validate stays within
 * its memory budget (150 MB peak RSS at a million messages) instead of letting garbage pile up.
 *
 * Why flags at run time: the heap sizes are read at start-up from flags a CLI cannot give itself (a
 * re-exec would leave a child behind on SIGKILL). These two V8 settings are read as the heap works,
 * so setting them here takes effect; on a Node whose V8 ignores them only memory differs, never results.
 * - The old generation may grow 50% past its live data before a major GC, instead of up to 4x.
 *   Reading promotes garbage steadily (records that outlive a scavenge, the short strings JSON.parse
 *   interns), and it is collected sooner.
 * - The young generation stops at 4 MB a semi-space: it starts at 1 MB and doubles while objects
 *   survive, up to 16, and a longer run reaches more doublings, so without a cap validate's peak grew
 *   13% from 1M to 3M messages. Checked after each GC, not on a timer.
 * Measured at 1M messages: validate ~180 -> ~105 MB, import ~230 -> ~118 MB. The cost is more GC
 * work where records live long enough to be promoted: a few % of CPU, most for CSV.
 */
export function keepHeapSmall(): void {
  v8.setFlagsFromString('--heap-growing-percent=50');
  // Not disconnected once the cap is reached: starting a worker thread (validate's CSV parser and
  // message reader) sets V8's flags back, and the young generation then grew to 32 MB (validate CSV
  // at 1M rows peaked at 137-141 MB instead of 114). So both are set again after every GC that finds
  // the young generation at its cap; a GC is far rarer than the few microseconds this takes.
  const observer = new PerformanceObserver(() => {
    const young = v8.getHeapSpaceStatistics().find((space) => space.space_name === 'new_space');
    if (young === undefined) {
      observer.disconnect();
    } else if (young.space_size >= YOUNG_GENERATION_CAP) {
      v8.setFlagsFromString('--semi-space-growth-factor=1');
      v8.setFlagsFromString('--heap-growing-percent=50');
    }
  });
  observer.observe({ entryTypes: ['gc'] });
}

/**
 * undici parses HTTP with llhttp compiled to WebAssembly at the first request, and V8's optimising
 * compiler took ~35 MB for that for a moment (measured: a lone GET peaked at 99 MB RSS, 64 MB with
 * this). Its baseline compiler is enough for parsing answers' headers. For verify, whose budget at a
 * million messages is held by its digests: set before the first request, which is when it compiles.
 */
export function keepWasmCompileSmall(): void {
  v8.setFlagsFromString('--liftoff-only');
}
