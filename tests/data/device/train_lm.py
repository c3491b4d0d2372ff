# Case 3c: a small language model whose tokenizer gained special tokens the embedding table
# was never resized for; the first batch that contains one indexes past the table on the GPU.
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F

parser = argparse.ArgumentParser()
parser.add_argument("--vocab-size", type=int, default=32000)
parser.add_argument("--tokenizer-size", type=int, default=32002)
parser.add_argument("--steps", type=int, default=10)
parser.add_argument("--bad-step", type=int, default=3)
args = parser.parse_args()

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
torch.manual_seed(0)


class TinyLM(nn.Module):
    def __init__(self, vocab, dim=512, layers=2):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        layer = nn.TransformerEncoderLayer(dim, 8, 4 * dim, batch_first=True)
        self.blocks = nn.TransformerEncoder(layer, layers)
        self.lm_head = nn.Linear(dim, vocab)

    def forward(self, tokens):
        return self.lm_head(self.blocks(self.embed(tokens)))


model = TinyLM(args.vocab_size).to(device)
optimizer = torch.optim.AdamW(model.parameters(), lr=3e-4)
for step in range(1, args.steps + 1):
    tokens = torch.randint(0, args.vocab_size, (16, 257), device=device)
    if step == args.bad_step:
        tokens[2, 0] = args.tokenizer_size - 1  # <|im_start|>, added to the tokenizer
    inputs, targets = tokens[:, :-1], tokens[:, 1:]
    logits = model(inputs)
    loss = F.cross_entropy(logits.reshape(-1, logits.size(-1)), targets.reshape(-1))
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    print(f"iter {step}: loss {loss.item():.4f}")
