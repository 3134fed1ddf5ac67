import { type ReactNode, useEffect, useRef, useState } from 'react';

interface Edges {
  /** Columns are hidden to the left (scrolled past). */
  start: boolean;
  /** Columns are hidden to the right. */
  end: boolean;
}

/** Which of a scrolling box's sides hide part of its content. */
function edgesOf(box: HTMLElement): Edges {
  const hidden = box.scrollWidth - box.clientWidth;
  return { start: box.scrollLeft > 1, end: hidden - box.scrollLeft > 1 };
}

/**
 * A table that scrolls sideways on a narrow screen, inside its own region (the page never does):
 * reachable by keyboard, so that its hidden columns can be scrolled to, and shaded on each side
 * that hides columns, so that a reader sees there is more (a phone shows no scrollbar until it is
 * touched).
 */
export function TableWrap({ label, children }: { label: string; children: ReactNode }) {
  const box = useRef<HTMLDivElement>(null);
  const [edges, setEdges] = useState<Edges>({ start: false, end: false });
  useEffect(() => {
    const element = box.current;
    if (!element) return;
    const measure = () =>
      setEdges((before) => {
        const now = edgesOf(element);
        return now.start === before.start && now.end === before.end ? before : now;
      });
    measure();
    element.addEventListener('scroll', measure, { passive: true });
    // The box's width changes with the window; its content's with the rows that load.
    const sizes = new ResizeObserver(measure);
    sizes.observe(element);
    for (const child of element.children) sizes.observe(child);
    return () => {
      element.removeEventListener('scroll', measure);
      sizes.disconnect();
    };
  }, []);
  return (
    <div
      className="table-scroll"
      data-more-start={edges.start ? '' : undefined}
      data-more-end={edges.end ? '' : undefined}
    >
      <div ref={box} className="table-wrap" role="region" aria-label={label} tabIndex={0}>
        {children}
      </div>
    </div>
  );
}
