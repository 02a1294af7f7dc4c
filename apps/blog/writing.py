"""What a model writes and draws for the blog (translateBlogPost, polishBlogPost, generateBlogImage,
generateBlogContentImage), through the service's model backends (apps.core.modelcalls, which the
message gateway fills; each call metered against the caller's API key like the gateway's own).

Text comes back as a JSON object (`title`, `excerpt`, `body`); the body is sanitised like any the
post is given (apps.blog.html). An image is decoded and written again as PNG (so no metadata of the
model's rides along), at most MAX_SIDE pixels on its longer side.
"""

import io
import json
from dataclasses import dataclass
from typing import Any

from apps.blog import errors
from apps.core import modelcalls

MAX_SIDE = 2048
MAX_PIXELS = 40_000_000
SIZES = ("1024x1024", "1536x1024", "1024x1536")


def _failure(error: modelcalls.ModelCallError, tool: str) -> Exception:
    if isinstance(error, modelcalls.NotConfigured):
        return errors.BlogModelNotConfigured(tool=tool, problem=error.problem)
    if isinstance(error, modelcalls.NoApiKey):
        return errors.BlogModelNeedsApiKey(tool=tool)
    assert isinstance(error, modelcalls.CallFailed)
    return errors.BlogModelCallFailed(tool=tool, problem=error.problem)


@dataclass(frozen=True)
class Written:
    fields: dict[str, str]
    model: str
    cost_micro_usd: int


def _json_answer(text: str, tool: str, wanted: tuple[str, ...]) -> dict[str, str]:
    body = text.strip()
    if body.startswith("```"):
        body = body.strip("`")
        body = body[body.find("{") :] if "{" in body else body
    start, end = body.find("{"), body.rfind("}")
    try:
        answer = json.loads(body[start : end + 1]) if start >= 0 and end > start else None
    except ValueError:
        answer = None
    if not isinstance(answer, dict) or not all(isinstance(answer.get(key, ""), str) for key in wanted):
        raise errors.BlogModelCallFailed(tool=tool, problem="its answer was not the JSON object asked for")
    if not (answer.get("body") or "").strip():
        raise errors.BlogModelCallFailed(tool=tool, problem="its answer had no body")
    return {key: str(answer.get(key) or "") for key in wanted}


def write(
    *, api_key_id: int | None, tool: str, system: str, post: dict[str, Any], wanted: tuple[str, ...]
) -> Written:
    try:
        answer = modelcalls.provider().write(
            api_key_id=api_key_id,
            system=system,
            text=json.dumps(post, ensure_ascii=False),
            max_tokens=8000,
            purpose=tool,
        )
    except modelcalls.ModelCallError as error:
        raise _failure(error, tool) from None
    if answer.cut:
        raise errors.BlogModelCallFailed(tool=tool, problem="its answer was cut at the most tokens allowed")
    return Written(_json_answer(answer.text, tool, wanted), answer.model, answer.cost_micro_usd)


def translation(*, api_key_id: int | None, post: dict[str, Any], language: str) -> Written:
    system = (
        "You translate blog posts. Translate the JSON object the user sends (title, excerpt, body) into "
        f"the language with the tag {language!r}. Keep the HTML markup of the body exactly, translate only "
        "the text, keep names and links. Answer with one JSON object with the keys title, excerpt and "
        "body, and nothing else."
    )
    return write(
        api_key_id=api_key_id,
        tool="translateBlogPost",
        system=system,
        post=post,
        wanted=("title", "excerpt", "body"),
    )


def polish(*, api_key_id: int | None, post: dict[str, Any], instructions: str) -> Written:
    system = (
        "You are a careful editor of blog posts. Improve the JSON object the user sends (title, body): "
        "grammar, spelling, clarity and flow, in its own language, keeping its meaning, facts, links and "
        "HTML markup. "
        + (f"The author asks: {instructions} " if instructions else "")
        + "Answer with one JSON object with the keys title and body, and nothing else."
    )
    return write(
        api_key_id=api_key_id, tool="polishBlogPost", system=system, post=post, wanted=("title", "body")
    )


@dataclass(frozen=True)
class Drawn:
    data: bytes
    width: int
    height: int
    model: str
    cost_micro_usd: int


def draw(*, api_key_id: int | None, tool: str, prompt: str, size: str) -> Drawn:
    try:
        drawing = modelcalls.provider().draw(api_key_id=api_key_id, prompt=prompt, size=size, purpose=tool)
    except modelcalls.ModelCallError as error:
        raise _failure(error, tool) from None
    data, width, height = _png(drawing.data, tool)
    return Drawn(data, width, height, drawing.model, drawing.cost_micro_usd)


def _png(data: bytes, tool: str) -> tuple[bytes, int, int]:
    from PIL import Image, UnidentifiedImageError

    Image.MAX_IMAGE_PIXELS = MAX_PIXELS
    try:
        with Image.open(io.BytesIO(data)) as image:
            image.load()
            picture = image.convert("RGBA" if image.mode in ("RGBA", "LA", "P") else "RGB")
    except (UnidentifiedImageError, OSError, Image.DecompressionBombError, ValueError):
        raise errors.BlogModelCallFailed(tool=tool, problem="its image could not be read") from None
    picture.thumbnail((MAX_SIDE, MAX_SIDE))
    out = io.BytesIO()
    picture.save(out, format="PNG", optimize=True)
    return out.getvalue(), picture.width, picture.height
