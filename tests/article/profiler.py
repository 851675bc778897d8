import torch
import torchaudio

with torch.profiler.profile() as prof:
    # 进行模型训练或推理
    output = model(x)
    loss = nn.MSELoss()(output, y)
    loss.backward()

print(prof.key_averages().table(sortby="cpu_time_total"))
