import { useMemo, useState } from 'react';
import qrcode from 'qrcode-generator';
import { roomAddresses, roomLinkOf } from './shareLink';
import { useSpec } from './storeContext';

/** The quiet zone around the code, in modules (the standard asks for 4). */
const QUIET = 4;

/** The dark modules of `text`'s QR code (error correction M, the smallest version that holds it) as one SVG path. */
function qrPath(text: string): { size: number; path: string } {
  const code = qrcode(0, 'M');
  code.addData(text, 'Byte');
  code.make();
  const count = code.getModuleCount();
  let path = '';
  for (let row = 0; row < count; row++) {
    for (let col = 0; col < count; col++) if (code.isDark(row, col)) path += `M${col + QUIET} ${row + QUIET}h1v1h-1z`;
  }
  return { size: count + 2 * QUIET, path };
}

/**
 * Presentation mode's audience link (docs/presenting.md#exports): the room's link (src/ui/shareLink.ts: the share
 * link in the ordinary layout, the one Share copies while presenting) as a QR code, drawn as SVG elements by React
 * (never markup injected), with the link under it as text. On a loopback page (localhost) no phone can open the
 * page's own address: the QR holds the address the server published for the room, and says so, or says how to
 * get one.
 */
export function AudienceQr() {
  const presentation = useSpec((s) => s.ui.presentation);
  const link = useSpec(roomLinkOf);
  const [open, setOpen] = useState(false);
  const code = useMemo(() => {
    if (!open) return null;
    try {
      return qrPath(link);
    } catch {
      // Past a QR code's capacity (a long custom schema): said, not drawn.
      return null;
    }
  }, [open, link]);
  if (!presentation) return null;
  const { loopback, bases } = roomAddresses();
  return (
    <>
      <button
        type="button"
        aria-pressed={open}
        onClick={() => setOpen(!open)}
        data-testid="audience-qr-toggle"
        title="A QR code of this run's share link, for the audience"
      >
        QR
      </button>
      {open && (
        <figure className="audience-qr" data-testid="audience-qr" data-link={link}>
          {code ? (
            <svg
              viewBox={`0 0 ${code.size} ${code.size}`}
              role="img"
              aria-label="QR code of this run's share link"
              shapeRendering="crispEdges"
              data-modules={code.size - 2 * QUIET}
            >
              <rect width={code.size} height={code.size} fill="#ffffff" />
              <path d={code.path} fill="#000000" />
            </svg>
          ) : (
            <p className="error">
              This run&rsquo;s link ({link.length} characters) is too long for a QR code; share it with the Share link
              button.
            </p>
          )}
          <figcaption>
            Scan to rerun this exact run on your device, at{' '}
            <code className="audience-link" data-testid="audience-qr-host">
              {new URL(link).host}
            </code>
            .
          </figcaption>
          {loopback && (
            <p className="warning" role="alert" data-testid="audience-qr-warning">
              {bases.length > 0
                ? `This page’s address (${location.host}) opens on this computer only; the code holds ${bases[0] ?? ''}, where the server also listens.`
                : `Phones cannot open this code: ${location.host} is this computer only. Start the dev server with npm start -- --host (the code then holds its LAN address), or set SPECLAB_PUBLIC_URL to the address the app is served at.`}
            </p>
          )}
        </figure>
      )}
    </>
  );
}
