import { useEffect, useRef } from 'react';
import { HELP_TOPICS, type HelpTopic } from '../store/store';
import { useSpec } from './storeContext';
import { startTour } from './Tour';
import { TOPIC_TEXT, TOPIC_TITLES } from './howItWorksText';

/**
 * A "?" beside a counter or chart, opening the matching part of "How it works". `about` names what it sits
 * beside, so that several "?" opening one topic keep distinct accessible names.
 */
export function HelpButton(props: { topic: HelpTopic; about?: string }) {
  const setUi = useSpec((s) => s.setUi);
  return (
    <button
      type="button"
      className="help-q"
      aria-label={`How it works: ${TOPIC_TITLES[props.topic]}${props.about ? `, for ${props.about}` : ''}`}
      title={TOPIC_TITLES[props.topic]}
      onClick={() => setUi({ howItWorks: props.topic })}
    >
      ?
    </button>
  );
}

export function HowItWorksButton() {
  const setUi = useSpec((s) => s.setUi);
  return (
    <button type="button" onClick={() => setUi({ howItWorks: 'speculative' })} data-tour="how-it-works">
      How it works
    </button>
  );
}

export function HowItWorks() {
  const topic = useSpec((s) => s.ui.howItWorks);
  const setUi = useSpec((s) => s.setUi);
  const panel = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!topic) return;
    const section = panel.current?.querySelector(`[data-topic="${topic}"]`);
    section?.scrollIntoView({ block: 'start' });
    (section?.querySelector('h3') as HTMLElement | null)?.focus();
  }, [topic]);
  if (!topic) return null;
  const close = () => setUi({ howItWorks: null });
  return (
    <div
      className="how-it-works"
      role="dialog"
      aria-modal="false"
      aria-labelledby="how-heading"
      data-testid="how-it-works"
      ref={panel}
      onKeyDown={(event) => {
        if (event.key !== 'Escape') return;
        event.stopPropagation();
        close();
      }}
    >
      <div className="how-head">
        <h2 id="how-heading">How it works</h2>
        <button
          type="button"
          onClick={() => {
            // The tour points at the page, so the panel makes way for it.
            close();
            startTour();
          }}
        >
          Take the tour
        </button>
        <button type="button" onClick={close}>
          Close
        </button>
      </div>
      {HELP_TOPICS.map((id) => (
        <section
          key={id}
          data-topic={id}
          aria-labelledby={`how-${id}`}
          className={id === topic ? 'current' : undefined}
        >
          <h3 id={`how-${id}`} tabIndex={-1}>
            {TOPIC_TITLES[id]}
          </h3>
          {TOPIC_TEXT[id].body.map((paragraph) => (
            <p key={paragraph}>{paragraph}</p>
          ))}
          <div className="worked-example">
            <strong>Worked example.</strong> <p data-testid={`worked-example-${id}`}>{TOPIC_TEXT[id].example}</p>
          </div>
        </section>
      ))}
    </div>
  );
}
