import { describe, expect, it } from 'vitest';
import { modelDirectoryName } from '../../src/contract/modelPairs';

describe('how the status line names a model directory without a manifest', () => {
  it('names a Hub repository, or a mirror in its layout, by org/repo', () => {
    expect(modelDirectoryName('https://huggingface.co/onnx-community/SmolLM2-135M-Instruct/resolve/main/')).toBe(
      'onnx-community/SmolLM2-135M-Instruct',
    );
    expect(modelDirectoryName('http://127.0.0.1:4173/speclab-replicas/llama2-draft/resolve/main')).toBe(
      'speclab-replicas/llama2-draft',
    );
    expect(modelDirectoryName('https://hf-mirror.example/Xenova/gpt2/resolve/refs%2Fpr%2F1/')).toBe('Xenova/gpt2');
  });

  it('names any other directory by its last folder, or its host', () => {
    expect(modelDirectoryName('https://models.example/pairs/my%20draft/')).toBe('my draft');
    expect(modelDirectoryName('https://models.example/')).toBe('models.example');
    expect(modelDirectoryName('https://models.example/resolve/main/')).toBe('main');
    expect(modelDirectoryName('https://models.example/a/b/resolve/main/onnx/')).toBe('onnx');
    expect(modelDirectoryName('https://models.example/bad%E0%A4%A/')).toBe('bad%E0%A4%A');
  });
});
