import { useEffect, useState } from 'react';
import { METHOD_DESCRIPTIONS } from './methodDescriptions';

type WebGpuStatus = { kind: 'checking' } | { kind: 'available'; adapter: string } | { kind: 'absent'; reason: string };

async function probeWebGpu(): Promise<WebGpuStatus> {
  if (!('gpu' in navigator)) return { kind: 'absent', reason: 'this browser has no navigator.gpu' };
  const adapter = await navigator.gpu.requestAdapter();
  if (!adapter) return { kind: 'absent', reason: 'no WebGPU adapter was granted' };
  const { vendor, architecture } = adapter.info;
  return { kind: 'available', adapter: [vendor, architecture].filter(Boolean).join(' / ') || 'unnamed adapter' };
}

function WebGpuBadge() {
  const [status, setStatus] = useState<WebGpuStatus>({ kind: 'checking' });
  useEffect(() => {
    let cancelled = false;
    probeWebGpu()
      .catch((error: unknown) => ({ kind: 'absent', reason: String(error) }) as const)
      .then((result) => {
        if (!cancelled) setStatus(result);
      });
    return () => {
      cancelled = true;
    };
  }, []);
  const text =
    status.kind === 'checking'
      ? 'Checking for WebGPU…'
      : status.kind === 'available'
        ? `WebGPU: ${status.adapter}`
        : `No WebGPU (${status.reason}): verification will run on the CPU`;
  return (
    <p className={`badge badge-${status.kind}`} role="status" data-testid="webgpu-status">
      {text}
    </p>
  );
}

export function App() {
  return (
    <main className="shell">
      <header>
        <h1>SpecLab</h1>
        <p className="tagline">
          Speculative decoding, run for real in your browser: small draft and target models, multi-draft block
          verification on WebGPU, and a JSON-schema mask at every step.
        </p>
        <WebGpuBadge />
      </header>
      <section aria-labelledby="methods-heading">
        <h2 id="methods-heading">Verification methods</h2>
        <dl className="methods">
          {METHOD_DESCRIPTIONS.map(({ id, name, summary }) => (
            <div key={id} data-method={id}>
              <dt>{name}</dt>
              <dd>{summary}</dd>
            </div>
          ))}
        </dl>
        <p>Every method is lossless: the emitted tokens are distributed exactly as the masked target would sample them.</p>
      </section>
      <section aria-labelledby="counters-heading">
        <h2 id="counters-heading">What the charts will count</h2>
        <ul>
          <li>
            <b>R</b> raw draft tokens, <b>I</b> invalidated by the grammar, <b>D = R − I</b>, <b>A</b> accepted by the
            target.
          </li>
          <li>
            Grammar survival D/R, conditional acceptance A/D, draft yield A/R, mean acceptance length 1 + A/steps.
          </li>
        </ul>
      </section>
    </main>
  );
}
