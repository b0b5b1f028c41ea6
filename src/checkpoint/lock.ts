import { open, readFile, unlink } from 'node:fs/promises';
import { hostname } from 'node:os';
import { CheckpointError } from '../errors.js';
import { fsReason, makeFolderFor, STATE_FILE_MODE } from './state-files.js';

interface LockInfo {
  pid: number;
  host: string;
  startedAt: string;
}

const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/**
 * A lock file beside the checkpoint, so two runs never write one checkpoint. A lock left by a process
 * that is gone (SIGKILL, power loss) on this host is stale and taken over; one from another host is
 * not judged, since its pid means nothing here.
 */
export class CheckpointLock {
  private held = false;

  constructor(readonly path: string) {}

  async acquire(): Promise<void> {
    await makeFolderFor(this.path).catch((err: unknown) => {
      throw this.unwritable(err);
    });
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        const handle = await open(this.path, 'wx', STATE_FILE_MODE);
        const info: LockInfo = { pid: process.pid, host: hostname(), startedAt: new Date().toISOString() };
        await handle.writeFile(JSON.stringify(info));
        await handle.close();
        this.held = true;
        return;
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        if (code !== 'EEXIST') throw this.unwritable(err);
        const owner = await this.readOwner();
        if (owner && owner.host === hostname() && !isAlive(owner.pid)) {
          await unlink(this.path).catch(() => undefined);
          continue;
        }
        if (!owner) {
          // Torn lock from a crash between create and write: no live owner can be named, so it is stale.
          await unlink(this.path).catch(() => undefined);
          continue;
        }
        throw new CheckpointError(
          'CHECKPOINT_LOCKED',
          `another run (pid ${owner.pid} on ${owner.host}, since ${owner.startedAt}) is using this checkpoint`,
          { hint: `wait for it to finish; if it is gone, delete ${this.path}` },
        );
      }
    }
    throw new CheckpointError('CHECKPOINT_LOCKED', `cannot take the lock ${this.path}`);
  }

  async release(): Promise<void> {
    if (!this.held) return;
    this.held = false;
    await unlink(this.path).catch(() => undefined);
  }

  private unwritable(err: unknown): CheckpointError {
    return new CheckpointError('CHECKPOINT_UNWRITABLE', `cannot create the lock file ${this.path}: ${fsReason(err)}`);
  }

  private async readOwner(): Promise<LockInfo | undefined> {
    try {
      const info = JSON.parse(await readFile(this.path, 'utf8')) as LockInfo;
      return typeof info.pid === 'number' ? info : undefined;
    } catch {
      return undefined;
    }
  }
}
