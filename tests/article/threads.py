import os
import torch

# 设置线程数为4
os.environ["OMP_NUM_THREADS"] = "4"
os.environ["MKL_NUM_THREADS"] = "4"

# 检查是否可用的线程数
print("使用的线程数:", torch.get_num_threads())
