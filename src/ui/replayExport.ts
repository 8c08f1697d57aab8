/**
 * "Export this step": the replay of one step (the frames of "Play this step") at 1280 × 720, as an animated
 * GIF (gifenc, 256 colours per frame) and, where the browser can encode it (WebCodecs' VP8), as a WebM video
 * (webm-muxer), for a slide that must not depend on a live demo. Each frame is the compact replay layout as it
 * looks on screen, with its caption, tree and grid, laid out at exactly 1280 × 720 for the export (the
 * `exporting-replay` class, teaching.css): no player controls, no export button, no scrollbars. It is drawn
 * from the page by html-to-image, with two fixes that its clone needs: the tree's SVG shapes get their colours
 * as inline styles resolved from the page's stylesheet (in the clone, a fill set by a class through CSS
 * variables and color-mix came out black), and each scrolled region's offset becomes a transform of its
 * content (a clone is not scrolled). Text reaches the image through the DOM only, never as markup.
 */
import { applyPalette, GIFEncoder, quantize } from 'gifenc';
import { toCanvas } from 'html-to-image';
import { ArrayBufferTarget, Muxer } from 'webm-muxer';

export const REPLAY_WIDTH = 1280;
export const REPLAY_HEIGHT = 720;
/** Milliseconds per GIF frame (2 fps), and GIF frames per phase: 1.5 s on each. */
export const FRAME_MS = 500;
export const HOLD_FRAMES = 3;
/** The video holds each phase as long as the GIF does. */
const PHASE_MS = FRAME_MS * HOLD_FRAMES;
const BACKGROUND = '#111418';
/** The root class that lays the replaying step out at 1280 × 720 without controls (teaching.css). */
export const EXPORTING_CLASS = 'exporting-replay';
/** WebCodecs' VP8: the codec a browser without proprietary codecs can still encode. */
const VIDEO_FRAME_RATE = 1000 / PHASE_MS;
const VIDEO_CONFIG: VideoEncoderConfig = {
  codec: 'vp8',
  width: REPLAY_WIDTH,
  height: REPLAY_HEIGHT,
  bitrate: 2_000_000,
  framerate: VIDEO_FRAME_RATE,
};

export type ReplayFormat = 'gif' | 'webm';

const nextPaint = () =>
  new Promise<void>((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => resolve())));

/** The properties of an SVG shape or text that its class sets, written on the element itself for the clone. */
const SVG_STYLE = [
  'fill',
  'stroke',
  'stroke-width',
  'stroke-dasharray',
  'opacity',
  'font-family',
  'font-size',
  'font-weight',
  'text-decoration',
] as const;

/** Inlines the tree's computed SVG styles and turns scroll offsets into transforms; returns the undo. */
function freezeForClone(element: HTMLElement): () => void {
  const undo: (() => void)[] = [];
  for (const node of element.querySelectorAll<SVGElement>('svg *')) {
    const previous = node.getAttribute('style');
    const computed = getComputedStyle(node);
    for (const name of SVG_STYLE) node.style.setProperty(name, computed.getPropertyValue(name));
    undo.push(() => (previous === null ? node.removeAttribute('style') : node.setAttribute('style', previous)));
  }
  for (const region of element.querySelectorAll<HTMLElement>('.grid-scroll, .replay-rest')) {
    const content = region.firstElementChild;
    if (!(content instanceof HTMLElement) || (region.scrollTop === 0 && region.scrollLeft === 0)) continue;
    const previous = content.style.transform;
    content.style.transform = `translate(${-region.scrollLeft}px, ${-region.scrollTop}px)`;
    undo.push(() => (content.style.transform = previous));
    // The grid's sticky headers (teaching.css) stay where the page shows them: moved back by the scroll.
    for (const header of region.querySelectorAll<HTMLTableCellElement>('th')) {
      if (getComputedStyle(header).position !== 'sticky') continue;
      const row = header.scope === 'row';
      const before = header.style.transform;
      header.style.transform = row ? `translate(${region.scrollLeft}px, 0)` : `translate(0, ${region.scrollTop}px)`;
      undo.push(() => (header.style.transform = before));
    }
  }
  return () => undo.forEach((step) => step());
}

/** The element as it is now, drawn on a 1280 × 720 canvas (the export layout is that size; a larger one is cut). */
async function drawFrame(element: HTMLElement, target: CanvasRenderingContext2D): Promise<void> {
  const thaw = freezeForClone(element);
  try {
    const picture = await toCanvas(element, {
      backgroundColor: BACKGROUND,
      pixelRatio: 1,
      width: REPLAY_WIDTH,
      height: REPLAY_HEIGHT,
    });
    target.fillStyle = BACKGROUND;
    target.fillRect(0, 0, REPLAY_WIDTH, REPLAY_HEIGHT);
    target.drawImage(picture, 0, 0, REPLAY_WIDTH, REPLAY_HEIGHT, 0, 0, REPLAY_WIDTH, REPLAY_HEIGHT);
  } finally {
    thaw();
  }
}

async function videoEncoderSupported(): Promise<boolean> {
  if (typeof VideoEncoder === 'undefined') return false;
  try {
    return (await VideoEncoder.isConfigSupported(VIDEO_CONFIG)).supported === true;
  } catch {
    return false;
  }
}

let videoSupport: Promise<boolean> | null = null;

/**
 * Whether this browser can encode the replay as a WebM video: asked once a page (the inspector's replay mounts
 * anew for each run, and the question took the page 12 ms, beside the engine's first steps).
 */
export function canEncodeVideo(): Promise<boolean> {
  videoSupport ??= videoEncoderSupported();
  return videoSupport;
}

/** Collects frames into a GIF or a WebM video. */
interface FrameSink {
  add(canvas: HTMLCanvasElement, context: CanvasRenderingContext2D, index: number): void;
  finish(): Promise<Blob>;
}

function gifSink(): FrameSink {
  const gif = GIFEncoder();
  return {
    add(_canvas, context) {
      const { data } = context.getImageData(0, 0, REPLAY_WIDTH, REPLAY_HEIGHT);
      const palette = quantize(data, 256);
      const index = applyPalette(data, palette);
      for (let hold = 0; hold < HOLD_FRAMES; hold++)
        gif.writeFrame(index, REPLAY_WIDTH, REPLAY_HEIGHT, { palette, delay: FRAME_MS });
    },
    finish() {
      gif.finish();
      return Promise.resolve(new Blob([gif.bytes().slice()], { type: 'image/gif' }));
    },
  };
}

function webmSink(): FrameSink {
  const muxer = new Muxer({
    target: new ArrayBufferTarget(),
    video: { codec: 'V_VP8', width: REPLAY_WIDTH, height: REPLAY_HEIGHT, frameRate: VIDEO_FRAME_RATE },
    firstTimestampBehavior: 'offset',
  });
  let failure: Error | null = null;
  const encoder = new VideoEncoder({
    output: (chunk, meta) => muxer.addVideoChunk(chunk, meta),
    error: (error) => (failure = error),
  });
  encoder.configure(VIDEO_CONFIG);
  let frames = 0;
  return {
    add(canvas, _context, index) {
      const frame = new VideoFrame(canvas, { timestamp: index * PHASE_MS * 1000, duration: PHASE_MS * 1000 });
      // Every phase a key frame: a slide tool may start the video anywhere.
      encoder.encode(frame, { keyFrame: true });
      frame.close();
      frames = index + 1;
    },
    async finish() {
      await encoder.flush();
      encoder.close();
      if (failure) throw failure;
      if (frames === 0) throw new Error('no frames to encode');
      muxer.finalize();
      return new Blob([muxer.target.buffer], { type: 'video/webm' });
    },
  };
}

/**
 * Shows each of `frames` phases in turn (`show(i)` must render it synchronously) in the export layout, draws
 * `element` after it has painted, and returns the GIF or the video. `show(null)` is called at the end, back to
 * the full step.
 */
export async function exportReplay(
  element: HTMLElement,
  frames: number,
  show: (frame: number | null) => void,
  format: ReplayFormat = 'gif',
): Promise<Blob> {
  const canvas = document.createElement('canvas');
  canvas.width = REPLAY_WIDTH;
  canvas.height = REPLAY_HEIGHT;
  const context = canvas.getContext('2d', { willReadFrequently: true });
  if (!context) throw new Error('this browser gives no 2D canvas');
  const sink = format === 'gif' ? gifSink() : webmSink();
  const root = document.documentElement;
  root.classList.add(EXPORTING_CLASS);
  try {
    for (let frame = 0; frame < frames; frame++) {
      show(frame);
      await nextPaint();
      await drawFrame(element, context);
      sink.add(canvas, context, frame);
    }
  } finally {
    root.classList.remove(EXPORTING_CLASS);
    show(null);
  }
  return sink.finish();
}
