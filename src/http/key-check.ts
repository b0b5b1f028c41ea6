/**
 * Until the service has answered one request of a run, the others wait: a wrong API key then costs one
 * request and one 401, not one per connection (an import at concurrency 8 sent 8). The first answer
 * that is not a refusal of the key opens the way for every request after it; a refusal is thrown to
 * every waiting request as well. A try that got no answer (a timeout, a reset) passes the turn on.
 */
import { InterruptedError } from '../errors.js';

export class KeyCheck {
  private open = false;
  private refused?: Error;
  /** Settles when the request under way before any answer has ended its try. */
  private turn?: Promise<void>;
  private endTurn?: () => void;

  /**
   * Waits until a request may go: at once once the key was accepted, else when no other request is
   * trying it. Resolves true when this request is the one trying the key (it must then call `done`).
   */
  async enter(stop: AbortSignal): Promise<boolean> {
    for (;;) {
      if (this.refused) throw this.refused;
      if (this.open) return false;
      if (this.turn === undefined) {
        this.turn = new Promise((resolve) => (this.endTurn = resolve));
        return true;
      }
      await waitOrStop(this.turn, stop);
    }
  }

  /** The trying request's try ended: `answered` with a status not refusing the key, or `refused`, or neither. */
  done(outcome: { answered: boolean; refused?: Error }): void {
    if (outcome.refused) this.refused = outcome.refused;
    else if (outcome.answered) this.open = true;
    const end = this.endTurn;
    this.turn = undefined;
    this.endTurn = undefined;
    end?.();
  }
}

function waitOrStop(turn: Promise<void>, stop: AbortSignal): Promise<void> {
  if (stop.aborted) return Promise.reject(new InterruptedError());
  return new Promise((resolve, reject) => {
    const onStop = () => reject(new InterruptedError());
    stop.addEventListener('abort', onStop, { once: true });
    turn.then(() => {
      stop.removeEventListener('abort', onStop);
      resolve();
    });
  });
}
