import { useEffect } from 'react';
import { DECODE_METHODS, decodeMethodInfo } from '../contract/runParams';
import { useSpec, useSpecStore } from './storeContext';

export const SHORTCUTS: readonly [string, string][] = [
  ['Space', 'run / pause'],
  ['→', 'one verification step'],
  ['R', 'reset'],
  ...DECODE_METHODS.map((method): [string, string] => [
    decodeMethodInfo(method).shortcut,
    `method: ${decodeMethodInfo(method).label}`,
  ]),
  ['P', 'presentation mode'],
  ['PageDown / → / Space', 'in a talk: next step or scene'],
  ['PageUp / ←', 'in a talk: previous scene'],
  ['Esc', 'leave the talk'],
  ['?', 'this list'],
];

/**
 * Global keys, ignored while typing in a field. The handler reads the store when a key is pressed: a
 * subscription here would redraw the whole app on every store update.
 */
export function useShortcuts(): void {
  const store = useSpecStore();
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      const actions = store.getState();
      const target = event.target as HTMLElement | null;
      if (
        target &&
        (target.closest('input, textarea, select, [contenteditable="true"]') ||
          event.ctrlKey ||
          event.metaKey ||
          event.altKey)
      )
        return;
      // In a talk, the keys a presentation clicker sends move through the scenes.
      if (actions.talk) {
        if (event.key === 'PageDown' || event.key === 'ArrowRight' || event.key === ' ') actions.talkNext();
        else if (event.key === 'PageUp' || event.key === 'ArrowLeft') actions.talkPrevious();
        else if (event.key === 'Escape') actions.leaveTalk();
        if (['PageDown', 'ArrowRight', ' ', 'PageUp', 'ArrowLeft', 'Escape'].includes(event.key))
          return event.preventDefault();
      }
      // Space on a focused button (or link, or summary) presses it, as everywhere else: it is not "run / pause" then.
      if (event.key === ' ' && target?.closest('button, a[href], summary, [role="button"]')) return;
      const method = DECODE_METHODS.find((candidate) => decodeMethodInfo(candidate).shortcut === event.key);
      if (event.key === ' ') actions.togglePause();
      else if (event.key === 'ArrowRight') actions.step();
      else if (event.key === 'r' || event.key === 'R') actions.reset();
      else if (event.key === 'p' || event.key === 'P') actions.setUi({ presentation: !actions.ui.presentation });
      else if (event.key === '?') actions.setUi({ help: !actions.ui.help });
      else if (event.key === 'Escape') actions.setUi({ help: false });
      else if (method) actions.setParams({ method });
      else return;
      event.preventDefault();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [store]);
}

export function ShortcutHelp() {
  const open = useSpec((s) => s.ui.help);
  const setUi = useSpec((s) => s.setUi);
  if (!open) return null;
  return (
    <div className="help" role="dialog" aria-modal="false" aria-labelledby="help-heading" data-testid="shortcut-help">
      <h2 id="help-heading">Keyboard shortcuts</h2>
      <dl>
        {SHORTCUTS.map(([key, what]) => (
          <div key={key}>
            <dt>
              <kbd>{key}</kbd>
            </dt>
            <dd>{what}</dd>
          </div>
        ))}
      </dl>
      <button type="button" onClick={() => setUi({ help: false })}>
        Close
      </button>
    </div>
  );
}
