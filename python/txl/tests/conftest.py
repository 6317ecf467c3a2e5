"""Shared pytest setup for the txl tests (CPU tests never need a GPU; GPU tests carry the ``gpu`` marker)."""


def pytest_configure(config):
    config.addinivalue_line("markers", "gpu: needs a CUDA GPU (skipped when torch.cuda.is_available() is false)")
