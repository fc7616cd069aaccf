"""Per-rank batches for training and evaluation, already on the device.

Real data sets are moved to the device once as uint8 and sliced there, so the loader never
limits a GPU; each rank takes a disjoint stride of one shared per-epoch permutation (what
DistributedSampler does). Synthetic data is a fixed pool of batches made once on the device.
"""

POOL = 8  # synthetic batches, reused in turn


class RealImages:
    def __init__(self, torch, split, batch, rank, world, device, size, seed, channels_last):
        self.torch, self.batch, self.rank, self.world = torch, batch, rank, world
        self.images, self.labels = split.images.to(device), split.labels.to(device)
        self.size, self.channels_last, self.device = size, channels_last, device
        self.gen = torch.Generator().manual_seed(seed)
        self.order, self.pos = None, 0

    def _next_indices(self):
        n = self.labels.shape[0]
        if self.order is None or self.pos + self.batch > self.order.numel():
            self.order = self.torch.randperm(n, generator=self.gen)[self.rank::self.world]  # same on every rank
            self.pos = 0
            if self.order.numel() < self.batch:
                self.order = self.order.repeat(-(-self.batch // max(self.order.numel(), 1)))
        idx = self.order[self.pos:self.pos + self.batch].to(self.device)
        self.pos += self.batch
        return idx

    def prepare(self, images):
        x = images.float().div_(255).sub_(0.5).div_(0.25)
        if self.size and x.shape[-1] != self.size:
            x = self.torch.nn.functional.interpolate(x, size=(self.size, self.size), mode="bilinear", align_corners=False)
        return x.contiguous(memory_format=self.torch.channels_last) if self.channels_last else x

    def next(self):
        idx = self._next_indices()
        return self.prepare(self.images[idx]), self.labels[idx]

    def evaluation(self, split, batch):
        """This rank's share of a split, in batches: (inputs, labels)."""
        images, labels = split.images[self.rank::self.world], split.labels[self.rank::self.world]
        for i in range(0, labels.shape[0], batch):
            yield self.prepare(images[i:i + batch].to(self.device)), labels[i:i + batch].to(self.device)


class SyntheticImages:
    """Random images whose class shifts their mean, so the loss can fall; labels uniform."""

    def __init__(self, torch, batch, classes, size, rank, device, seed, channels_last):
        # made on the device: 8 ResNet-50 batches of 256 are 300 M random numbers
        gen = torch.Generator(device=device).manual_seed(seed * 1000 + rank)
        self.pool = []
        for _ in range(POOL):
            labels = torch.randint(classes, (batch,), generator=gen, device=device)
            x = torch.randn(batch, 3, size, size, generator=gen, device=device)
            x += (labels.float() / classes - 0.5).view(-1, 1, 1, 1)
            self.pool.append((x.contiguous(memory_format=torch.channels_last) if channels_last else x, labels))
        self.i = 0

    def next(self):
        self.i += 1
        return self.pool[(self.i - 1) % POOL]


class SyntheticTokens:
    """Token sequences of arithmetic progressions mod vocab: predictable from two tokens on."""

    def __init__(self, torch, batch, seq_len, vocab, rank, device, seed):
        gen = torch.Generator().manual_seed(seed * 1000 + rank)
        steps = torch.arange(seq_len + 1)
        self.pool = []
        for _ in range(POOL):
            start = torch.randint(vocab, (batch, 1), generator=gen)
            stride = torch.randint(1, 8, (batch, 1), generator=gen)
            seq = ((start + stride * steps) % vocab).to(device)
            self.pool.append((seq[:, :-1].contiguous(), seq[:, 1:].contiguous()))
        self.i = 0

    def next(self):
        self.i += 1
        return self.pool[(self.i - 1) % POOL]
