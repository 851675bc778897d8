# The article's profiler block with the two other slips taken out (the training step it
# profiles is pasted in with `import torch`, and the unused torchaudio import is gone), so
# that what is left is its call to table(sortby=...).
import torch
import torch.nn as nn

class SimpleModel(nn.Module):
    def __init__(self):
        super(SimpleModel, self).__init__()
        self.fc = nn.Linear(10, 5)

    def forward(self, x):
        return self.fc(x)

model = SimpleModel()
x = torch.randn(10)  # 输入数据
y = torch.randn(5)   # 目标输出

with torch.profiler.profile() as prof:
    # 进行模型训练或推理
    output = model(x)
    loss = nn.MSELoss()(output, y)
    loss.backward()

print(prof.key_averages().table(sortby="cpu_time_total"))
