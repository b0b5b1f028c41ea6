import type { EntityPlan } from '../pipeline/plan.js';
import type { PresetContext } from './context.js';

export async function planDiscord(ctx: PresetContext): Promise<EntityPlan[]> {
  void ctx;
  throw new Error('not yet');
}
