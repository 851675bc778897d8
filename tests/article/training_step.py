import torch.nn as nn

class SimpleModel(nn.Module):
    def __init__(self):
        super(SimpleModel, self).__init__()
        self.fc = nn.Linear(10, 5)

    def forward(self, x):
        return self.fc(x)

model = SimpleModel()
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)

x = torch.randn(10)  # 输入数据
y = torch.randn(5)   # 目标输出

# 正确使用模型，避免多次计算
output = model(x)
loss = nn.MSELoss()(output, y)
optimizer.zero_grad()
loss.backward()  # 反向传播
optimizer.step()
