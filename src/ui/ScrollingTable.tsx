import { useEffect, useRef, useState, type ReactNode } from 'react';

/**
 * A table that scrolls sideways where the screen is narrower than its columns, and says so: on a 1024-wide
 * projector a scrollbar alone is easy to miss from the back of a room, so a line above the table says where the
 * hidden columns are. The first column stays in place (CSS).
 */
export function ScrollingTable({ cueId, children }: { cueId: string; children: ReactNode }) {
  const scroller = useRef<HTMLDivElement>(null);
  const [hidden, setHidden] = useState<'none' | 'right' | 'left'>('none');
  useEffect(() => {
    const element = scroller.current;
    if (!element) return;
    const measure = () => {
      const overflow = element.scrollWidth - element.clientWidth;
      setHidden(overflow <= 1 ? 'none' : element.scrollLeft < overflow - 1 ? 'right' : 'left');
    };
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(element);
    const table = element.firstElementChild;
    if (table) observer.observe(table);
    element.addEventListener('scroll', measure, { passive: true });
    return () => {
      observer.disconnect();
      element.removeEventListener('scroll', measure);
    };
  }, []);
  return (
    <>
      {hidden !== 'none' && (
        <p className="scroll-cue" data-testid={cueId}>
          {hidden === 'right' ? 'More columns to the right: scroll the table sideways →' : '← More columns to the left'}
        </p>
      )}
      <div className="table-scroll sticky-first" ref={scroller}>
        {children}
      </div>
    </>
  );
}
