import pytest

torch = pytest.importorskip("torch")
torchvision = pytest.importorskip("torchvision")

from gpucheck_workload import models  # noqa: E402


@pytest.mark.parametrize("name,channels,size,classes", [
    ("resnet18", 1, 28, 10),    # FashionMNIST: 1 channel, CIFAR stem
    ("resnet18", 3, 32, 100),   # CIFAR-100
    ("resnet50", 3, 224, 1000),  # ImageNet-sized synthetic data, torchvision's own stem
    ("resnet18", 1, 96, 10),    # 1 channel at a large size keeps the 7x7 stride-2 stem
])
def test_resnet_forward_shapes(name, channels, size, classes):
    model = models.resnet(torch, torchvision, name, classes, channels, size).eval()
    with torch.no_grad():
        out = model(torch.randn(2, channels, size, size))
    assert out.shape == (2, classes)
    small = size <= models.SMALL_IMAGE
    assert model.conv1.in_channels == channels
    assert model.conv1.kernel_size == ((3, 3) if small else (7, 7))
    assert isinstance(model.maxpool, torch.nn.Identity) == small


def test_gpt_forward_shape_causality_and_params():
    torch.manual_seed(0)
    model = models.gpt(torch, layers=2, width=32, heads=4, seq_len=16, vocab=50).eval()
    tokens = torch.randint(50, (3, 16))
    with torch.no_grad():
        logits = model(tokens)
        changed = tokens.clone()
        changed[:, 10:] = (changed[:, 10:] + 1) % 50
        logits2 = model(changed)
    assert logits.shape == (3, 16, 50)
    # causal: positions before the change see the same prefix and give the same logits
    assert torch.allclose(logits[:, :10], logits2[:, :10], atol=1e-5)
    assert not torch.allclose(logits[:, 10:], logits2[:, 10:])
    # per block: qkv 32*96+96, proj 32*32+32, fc 32*128+128, out 128*32+32, 2 LayerNorms 4*32
    block = 32 * 96 + 96 + 32 * 32 + 32 + 32 * 128 + 128 + 128 * 32 + 32 + 4 * 32
    tok, pos, final_ln = 50 * 32, 16 * 32, 2 * 32
    assert sum(p.numel() for p in model.parameters()) == 2 * block + tok + pos + final_ln  # head tied to tok
    assert models.matmul_params(model) == 2 * block + tok + final_ln


def test_training_flops_per_token_count_attention():
    model = models.gpt(torch, layers=2, width=32, heads=4, seq_len=16, vocab=50)
    # N = 2 blocks of 12704 (as above) + tied token table 50*32 = 1600 + final LayerNorm 64 = 27072;
    # 6 * 27072 = 162432 for the weights, 12 * 2 layers * 16 tokens * 32 wide = 12288 for attention
    assert models.train_flops_per_token(model, 2, 16, 32) == 162432 + 12288 == 174720
