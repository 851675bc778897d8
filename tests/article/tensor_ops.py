import torch

# 创建两个随机张量
x = torch.randn(10000, 1000)
y = torch.randn(1000, 10000)

# 使用张量乘法而非循环
result = torch.mm(x, y)

# 查看结果的形状
print("结果的形状:", result.shape)
