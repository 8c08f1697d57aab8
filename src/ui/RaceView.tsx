import { fixed, METHOD_LABELS, percent } from './format';
import { useSpec } from './storeContext';
import { derivedRatios } from '../core/metrics';

export function RaceView() {
  const race = useSpec((s) => s.race);
  if (race.status === 'idle') return null;
  const baseline = race.rows.find((row) => row.params.method === 'ar');
  return (
    <section className="race" aria-labelledby="race-heading" data-testid="race">
      <h2 id="race-heading">Race: every method, same prompt and seed {race.status === 'running' ? '(running…)' : race.status === 'cancelled' ? '(cancelled)' : ''}</h2>
      {race.error && (
        <p className="error" role="alert">
          {race.error}
        </p>
      )}
      <table>
        <thead>
          <tr>
            <th scope="col">method</th>
            <th scope="col">tokens</th>
            <th scope="col">target forwards</th>
            <th scope="col">block efficiency (tokens / forward)</th>
            <th scope="col">mean acceptance length 1 + A/steps</th>
            <th scope="col">A/D conditional acceptance</th>
            <th scope="col">tokens/s</th>
            <th scope="col">speedup over AR (wall clock)</th>
            <th scope="col">output</th>
          </tr>
        </thead>
        <tbody>
          {race.rows.map((row) => (
            <tr key={row.params.method} data-method={row.params.method}>
              <th scope="row">{METHOD_LABELS[row.params.method]}</th>
              <td>{row.tokens.length}</td>
              <td>{row.steps}</td>
              <td>{fixed(row.tokens.length / row.steps)}</td>
              <td>{fixed(derivedRatios(row.counters).meanAcceptanceLength)}</td>
              <td>{percent(derivedRatios(row.counters).conditionalAcceptance)}</td>
              <td>{fixed(row.tokensPerSecond, 1)}</td>
              <td>{baseline ? `${fixed(row.tokensPerSecond / baseline.tokensPerSecond)}×` : '—'}</td>
              <td className="race-text">{row.verdict?.kind ?? 'free text'}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
