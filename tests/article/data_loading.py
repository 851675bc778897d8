from torchvision import datasets, transforms
from torch.utils.data import DataLoader

transform = transforms.Compose([transforms.ToTensor()])

# 加载MNIST数据集
train_data = datasets.MNIST(root='./data', train=True, download=True, transform=transform)

# 使用4个子进程来加速数据加载
train_loader = DataLoader(dataset=train_data, batch_size=64, shuffle=True, num_workers=4)

for images, labels in train_loader:
    # 进行训练或其他处理
    pass  # 这里省略具体实现
