/** Okabe–Ito: distinguishable with every common colour-vision deficiency. */
export const PALETTE = { R: '#0072B2', I: '#D55E00', D: '#009E73', A: '#CC79A7', other: '#E69F00', grey: '#56B4E9' };
