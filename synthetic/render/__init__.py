"""Overhead-camera renderer for synthetic pyramid footage (test and demo support only)."""

from synthetic.render.camera import default_camera
from synthetic.render.renderer import Renderer, RenderResult, get_renderer, render_frame
from synthetic.render.style import STYLES, BallSet, RenderStyle, get_style

__all__ = [
    "STYLES",
    "BallSet",
    "RenderResult",
    "RenderStyle",
    "Renderer",
    "default_camera",
    "get_renderer",
    "get_style",
    "render_frame",
]
