"""resnet18 (random weights) inference in NCHW against channels_last (NHWC), at a size where
it helps and at tiny images where it does not. The model and the conversion are the ones the
page shows, loaded from snippets/channels_last_conv_inference.py.
"""

import torch

from bench.core import load_snippet

TITLE = "channels_last"
ORDER = 60
WHEN = 'Convolutional models; measure it on your CPU, it does not win on every one.'  # Home's headline table: when the technique applies
# What its verdicts and Home's headline count: the variant a reader should use, per regime (row-id patterns)
RECOMMENDED = {"inference": ["channels_last/*/channels-last"]}


def run(session) -> None:
    cl = load_snippet("channels_last_conv_inference")
    torch.manual_seed(0)
    model = cl.make_model()
    cases = [("small images", session.pick(1, 8), session.pick(64, 112)),  # a typical small-image size
             ("tiny images", session.pick(4, 32), 32)]  # 1x1 feature maps at the end
    for threads, where in session.thread_settings():
        for name, batch, size in cases:
            x = torch.randn(batch, 3, size, size)
            model_cl, x_cl = cl.to_channels_last(model, x)
            group = f"resnet18, {name}, {where}"
            sizes = {"batch_size": batch, "image_size": size}
            with torch.inference_mode():
                session.time(group, "NCHW (default)", lambda: model(x), num_threads=threads,
                             baseline=True, items=batch, params=sizes)
                session.time(group, "channels_last", lambda: model_cl(x_cl), num_threads=threads,
                             items=batch, params=sizes)
                # Input left in NCHW: the first conv converts it, every call.
                session.time(group, "channels_last model, NCHW input", lambda: model_cl(x),
                             num_threads=threads, items=batch, params=sizes)
