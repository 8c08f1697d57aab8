/**
 * "Export this step": the replay of one step (the frames of "Play this step") as an animated GIF at
 * 1280 × 720, for a slide that must not depend on a live demo. Each phase is drawn once from the page
 * (html-to-image), the top of the step's panel fitted to 16:9, and held for `HOLD_FRAMES` frames of a 2 fps
 * GIF (gifenc, 256 colours per frame). Text reaches the image through the DOM only, never as markup.
 */
import { applyPalette, GIFEncoder, quantize } from 'gifenc';
import { toCanvas } from 'html-to-image';

export const REPLAY_WIDTH = 1280;
export const REPLAY_HEIGHT = 720;
/** Milliseconds per GIF frame (2 fps), and GIF frames per phase: 1.5 s on each. */
export const FRAME_MS = 500;
export const HOLD_FRAMES = 3;
const BACKGROUND = '#111418';

const nextPaint = () => new Promise<void>((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => resolve())));

/** The element as it is now, its top fitted to a 1280 × 720 canvas (the width fills it; a taller panel is cut). */
async function drawFrame(element: HTMLElement, target: CanvasRenderingContext2D): Promise<void> {
  const picture = await toCanvas(element, { backgroundColor: BACKGROUND, pixelRatio: 1 });
  const height = Math.min(picture.height, (picture.width * REPLAY_HEIGHT) / REPLAY_WIDTH);
  const scale = Math.min(REPLAY_WIDTH / picture.width, REPLAY_HEIGHT / height);
  target.fillStyle = BACKGROUND;
  target.fillRect(0, 0, REPLAY_WIDTH, REPLAY_HEIGHT);
  target.drawImage(picture, 0, 0, picture.width, height, (REPLAY_WIDTH - picture.width * scale) / 2, 0, picture.width * scale, height * scale);
}

/**
 * Shows each of `frames` phases in turn (`show(i)` must render it synchronously), draws `element` after it
 * has painted, and returns the GIF. `show(null)` is called at the end, back to the full step.
 */
export async function exportReplayGif(element: HTMLElement, frames: number, show: (frame: number | null) => void): Promise<Blob> {
  const canvas = document.createElement('canvas');
  canvas.width = REPLAY_WIDTH;
  canvas.height = REPLAY_HEIGHT;
  const context = canvas.getContext('2d', { willReadFrequently: true });
  if (!context) throw new Error('this browser gives no 2D canvas');
  const gif = GIFEncoder();
  try {
    for (let frame = 0; frame < frames; frame++) {
      show(frame);
      await nextPaint();
      await drawFrame(element, context);
      const { data } = context.getImageData(0, 0, REPLAY_WIDTH, REPLAY_HEIGHT);
      const palette = quantize(data, 256);
      const index = applyPalette(data, palette);
      for (let hold = 0; hold < HOLD_FRAMES; hold++) gif.writeFrame(index, REPLAY_WIDTH, REPLAY_HEIGHT, { palette, delay: FRAME_MS });
    }
  } finally {
    show(null);
  }
  gif.finish();
  return new Blob([gif.bytes().slice()], { type: 'image/gif' });
}
