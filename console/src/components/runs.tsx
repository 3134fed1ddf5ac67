import { Link } from 'wouter';
import type { Schemas } from '../api/client';
import { ProgressBar } from './ui';

type Run = Schemas['RunView'];

/** What a run spent of its budget, as a bar. */
export function SpentBar({ run }: { run: Run }) {
  return (
    <ProgressBar
      done={run.spent}
      total={run.budget}
      label={`Spent by ${run.label ?? run.id} of its budget`}
    />
  );
}

/** A run's id, shortened (its whole id in its title). */
function ShortId({ id }: { id: string }) {
  return (
    <span className="mono" title={id}>
      {id.slice(0, 16)}…
    </span>
  );
}

/** A run's name: its label, else its id. */
export function RunName({ run }: { run: Run }) {
  return (
    <>
      <Link href={`/runs/${run.id}`} className="cell-title">
        {run.label ?? <ShortId id={run.id} />}
      </Link>
      {run.label && (
        <div className="cell-sub">
          <ShortId id={run.id} />
        </div>
      )}
    </>
  );
}
