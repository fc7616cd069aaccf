"""The benchmark models: torchvision ResNets and a GPT-style decoder-only transformer.

ResNets keep torchvision's definition (so images/s compare with published ResNet-50 numbers);
for small inputs they take the usual CIFAR stem: a 3×3 stride-1 first convolution and no
max-pool, since the ImageNet stem would shrink a 28×28 image to 7×7 before the first block.
"""
import math

SMALL_IMAGE = 64


def resnet(torch, torchvision, name, classes, channels, image_size):
    model = getattr(torchvision.models, name)(num_classes=classes)
    if image_size <= SMALL_IMAGE:
        model.conv1 = torch.nn.Conv2d(channels, 64, kernel_size=3, stride=1, padding=1, bias=False)
        model.maxpool = torch.nn.Identity()
    elif channels != 3:
        model.conv1 = torch.nn.Conv2d(channels, 64, kernel_size=7, stride=2, padding=3, bias=False)
    return model


def gpt(torch, layers, width, heads, seq_len, vocab):
    nn, F = torch.nn, torch.nn.functional
    sdpa = getattr(F, "scaled_dot_product_attention", None)  # torch >= 2.0: flash / memory-efficient kernels

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.ln1, self.ln2 = nn.LayerNorm(width), nn.LayerNorm(width)
            self.qkv, self.proj = nn.Linear(width, 3 * width), nn.Linear(width, width)
            self.fc, self.out = nn.Linear(width, 4 * width), nn.Linear(4 * width, width)

        def attend(self, x):
            b, t, _ = x.shape
            q, k, v = self.qkv(x).view(b, t, 3, heads, width // heads).permute(2, 0, 3, 1, 4)
            if sdpa is not None:
                y = sdpa(q, k, v, is_causal=True)
            else:
                mask = torch.full((t, t), float("-inf"), device=x.device, dtype=q.dtype).triu(1)
                scores = q @ k.transpose(-2, -1) / math.sqrt(width // heads) + mask
                y = scores.softmax(-1) @ v
            return self.proj(y.transpose(1, 2).reshape(b, t, width))

        def forward(self, x):
            x = x + self.attend(self.ln1(x))
            return x + self.out(F.gelu(self.fc(self.ln2(x))))

    class GPT(nn.Module):
        def __init__(self):
            super().__init__()
            self.tok, self.pos = nn.Embedding(vocab, width), nn.Embedding(seq_len, width)
            self.blocks = nn.ModuleList(Block() for _ in range(layers))
            self.ln = nn.LayerNorm(width)
            self.head = nn.Linear(width, vocab, bias=False)
            self.head.weight = self.tok.weight  # tied, as in GPT-2
            for m in self.modules():
                if isinstance(m, (nn.Linear, nn.Embedding)):
                    nn.init.normal_(m.weight, std=0.02)
                if isinstance(m, nn.Linear) and m.bias is not None:
                    nn.init.zeros_(m.bias)

        def forward(self, idx):
            x = self.tok(idx) + self.pos(torch.arange(idx.shape[1], device=idx.device))
            for block in self.blocks:
                x = block(x)
            return self.head(self.ln(x))

    return GPT()


def matmul_params(model):
    """Parameters that take part in a matrix multiply per token: all but the position table.

    The tied token embedding counts once, as the output projection (the input lookup does no
    arithmetic). This is the N of the 6·N·tokens training-FLOPs rule.
    """
    pos = model.pos.weight.numel() if hasattr(model, "pos") else 0
    return sum(p.numel() for p in model.parameters()) - pos


def train_flops_per_token(model, layers, seq_len, width):
    """Training FLOPs per token: 6·N for the weight matmuls plus 12·L·T·d for attention.

    The attention-score matmuls (Q·Kᵀ and scores·V, 2·T·d multiply-adds each per token and layer,
    forward 4·T·d FLOPs, backward twice that) hold no parameters, so 6·N alone reads low by
    12·L·T·d / 6·N: 7-13 % for the suites' configurations. This is the convention of PaLM's MFU
    (Chowdhery et al. 2022, appendix B) and Megatron-LM (Narayanan et al. 2021, eq. 3, which also
    counts the logit layer, as N does here): the full T×T product is counted even though a causal
    kernel may skip the masked half, so the figure compares with published TFLOP/s.
    """
    return 6 * matmul_params(model) + 12 * layers * seq_len * width
