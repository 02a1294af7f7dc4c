"""Documents rendered to PDF with ReportLab (pure Python plus its own wheels; no system library).

The sanitised HTML of a document (apps.documents.richtext) is walked into ReportLab flowables:
headings, paragraphs, bullet and numbered lists (nested), quotes, code blocks, tables and rules,
with bold, italic, underline, strikethrough, code, links, sub- and superscript inside them. Text
is set in Bitstream Vera, the TrueType family ReportLab ships, so accented Latin text and common
symbols come out as written.
"""

import html
import io
from dataclasses import dataclass, field
from datetime import datetime
from html.parser import HTMLParser
from typing import Any

from reportlab.lib import colors
from reportlab.lib.enums import TA_LEFT
from reportlab.lib.pagesizes import A4
from reportlab.lib.styles import ParagraphStyle, getSampleStyleSheet
from reportlab.lib.units import mm
from reportlab.platypus import (
    HRFlowable,
    ListFlowable,
    ListItem,
    Paragraph,
    Preformatted,
    SimpleDocTemplate,
    Spacer,
    Table,
    TableStyle,
)

from apps.core.pdf import FONT, vera

MONO = "Courier"


def _styles() -> dict[str, ParagraphStyle]:
    base = getSampleStyleSheet()
    body = ParagraphStyle(
        "body", parent=base["BodyText"], fontName=FONT, fontSize=10.5, leading=14.5, alignment=TA_LEFT
    )
    styles = {"p": body}
    for level, size in zip(range(1, 7), (20, 16, 13.5, 12, 11, 10.5), strict=True):
        styles[f"h{level}"] = ParagraphStyle(
            f"h{level}",
            parent=body,
            fontName=f"{FONT}-Bold",
            fontSize=size,
            leading=size * 1.25,
            spaceBefore=8,
            spaceAfter=4,
        )
    styles["title"] = ParagraphStyle("title", parent=styles["h1"], fontSize=22, leading=27, spaceAfter=2)
    styles["meta"] = ParagraphStyle("meta", parent=body, fontSize=8.5, textColor=colors.grey, spaceAfter=10)
    styles["quote"] = ParagraphStyle(
        "quote", parent=body, leftIndent=14, textColor=colors.HexColor("#444444")
    )
    styles["pre"] = ParagraphStyle(
        "pre", parent=body, fontName=MONO, fontSize=9, leading=11.5, backColor=colors.HexColor("#f3f3f3")
    )
    styles["cell"] = ParagraphStyle("cell", parent=body, fontSize=9.5, leading=12)
    return styles


# --- a small tree of the sanitised HTML ---------------------------------------------------------


@dataclass
class Node:
    tag: str
    attrs: dict[str, str] = field(default_factory=dict)
    children: list[Any] = field(default_factory=list)  # Node or str


class _Tree(HTMLParser):
    VOID = {"br", "hr"}
    # Elements nested deeper than this are left out (their text stays, in the deepest kept): the
    # renderer walks the tree recursively and indents each list level, and sanitised HTML may nest
    # hundreds of elements deep (40: lists twenty deep).
    MAX_NESTING = 40

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.root = Node("root")
        self.stack = [self.root]
        self.left_out: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag not in self.VOID and len(self.stack) > self.MAX_NESTING:
            self.left_out.append(tag)
            return
        node = Node(tag, {key: value or "" for key, value in attrs})
        self.stack[-1].children.append(node)
        if tag not in self.VOID:
            self.stack.append(node)

    def handle_endtag(self, tag: str) -> None:
        if tag in self.left_out:
            del self.left_out[len(self.left_out) - 1 - self.left_out[::-1].index(tag)]
            return
        for index in range(len(self.stack) - 1, 0, -1):
            if self.stack[index].tag == tag:
                del self.stack[index:]
                break

    def handle_data(self, data: str) -> None:
        self.stack[-1].children.append(data)


INLINE = {
    "b": ("<b>", "</b>"),
    "strong": ("<b>", "</b>"),
    "i": ("<i>", "</i>"),
    "em": ("<i>", "</i>"),
    "u": ("<u>", "</u>"),
    "s": ("<strike>", "</strike>"),
    "del": ("<strike>", "</strike>"),
    "code": (f'<font face="{MONO}">', "</font>"),
    "sub": ("<sub>", "</sub>"),
    "sup": ("<super>", "</super>"),
    "mark": ('<font backColor="#fff3a0">', "</font>"),
}
BLOCKS = {"p", "h1", "h2", "h3", "h4", "h5", "h6", "ul", "ol", "blockquote", "pre", "hr", "table", "div"}


def _markup(children: list[Any]) -> str:
    """ReportLab's paragraph markup of inline content."""
    out = []
    for child in children:
        if isinstance(child, str):
            out.append(html.escape(" ".join(child.split("\n")), quote=False))
        elif child.tag == "br":
            out.append("<br/>")
        elif child.tag == "a":
            href = html.escape(child.attrs.get("href", ""), quote=True)
            inner = _markup(child.children)
            out.append(f'<a href="{href}" color="#1a56b0"><u>{inner}</u></a>' if href else inner)
        elif child.tag in INLINE:
            start, end = INLINE[child.tag]
            out.append(f"{start}{_markup(child.children)}{end}")
        else:
            out.append(_markup(child.children))
    return "".join(out)


def _plain(node: Any) -> str:
    if isinstance(node, str):
        return node
    return "".join(_plain(child) for child in node.children)


MARGIN = 20 * mm
# The frame's width: the page's less its margins and the frame's own padding (6 points a side).
FRAME_WIDTH = A4[0] - 2 * MARGIN - 12


class _Renderer:
    def __init__(self) -> None:
        self.styles = _styles()
        self.width = FRAME_WIDTH

    def blocks(self, children: list[Any], style: str = "p") -> list[Any]:
        """Flowables of a mix of block and inline children (inline runs become paragraphs)."""
        flow: list[Any] = []
        run: list[Any] = []

        def flush() -> None:
            text = _markup(run).strip()
            if text:
                flow.append(Paragraph(text, self.styles[style]))
            run.clear()

        for child in children:
            if isinstance(child, Node) and child.tag in BLOCKS:
                flush()
                flow += self.block(child, style)
            else:
                run.append(child)
        flush()
        return flow

    def block(self, node: Node, style: str) -> list[Any]:
        tag = node.tag
        if tag in {"h1", "h2", "h3", "h4", "h5", "h6"}:
            return [Paragraph(_markup(node.children) or "&nbsp;", self.styles[tag])]
        if tag == "p":
            text = _markup(node.children).strip()
            return [Paragraph(text, self.styles[style])] if text else []
        if tag in {"ul", "ol"}:
            items = [
                ListItem(
                    self.blocks(child.children, style) or [Paragraph("", self.styles[style])], leftIndent=14
                )
                for child in node.children
                if isinstance(child, Node) and child.tag == "li"
            ]
            if not items:
                return []
            options: dict[str, Any] = {"bulletType": "1" if tag == "ol" else "bullet", "leftIndent": 14}
            if tag == "ol":
                options["start"] = node.attrs.get("start") or "1"
                options["bulletFormat"] = "%s."
            else:
                options["start"] = "\u2022"
            # ListItems, as reportlab documents it (its stubs ask for flowables only).
            return [ListFlowable(items, bulletFontName=FONT, bulletFontSize=9, **options)]  # type: ignore[arg-type]
        if tag == "blockquote":
            return self.blocks(node.children, "quote")
        if tag == "pre":
            return [Preformatted(_plain(node).rstrip("\n"), self.styles["pre"]), Spacer(1, 4)]
        if tag == "hr":
            return [HRFlowable(width="100%", thickness=0.6, color=colors.grey, spaceBefore=6, spaceAfter=6)]
        if tag == "table":
            return self.table(node)
        return self.blocks(node.children, style)

    def table(self, node: Node) -> list[Any]:
        rows: list[list[Any]] = []
        header = False

        def walk(element: Node) -> None:
            nonlocal header
            for child in element.children:
                if not isinstance(child, Node):
                    continue
                if child.tag in {"thead", "tbody"}:
                    walk(child)
                elif child.tag == "tr":
                    cells = [c for c in child.children if isinstance(c, Node) and c.tag in {"td", "th"}]
                    if not cells:
                        continue  # a row of no cells is no row
                    if not rows and all(c.tag == "th" for c in cells):
                        header = True
                    rows.append([Paragraph(_markup(c.children) or "", self.styles["cell"]) for c in cells])

        walk(node)
        if not rows:
            return []
        width = max(len(row) for row in rows)
        rows = [row + [""] * (width - len(row)) for row in rows]
        # Columns share the frame's width, and a row taller than a page goes on over the next
        # (splitInRow): a long cell is split, never refused as a flowable too large to place.
        table = Table(
            rows,
            colWidths=[self.width / width] * width,
            repeatRows=1 if header else 0,
            hAlign="LEFT",
            splitInRow=1,
        )
        # Narrow columns (a table of dozens) keep half their width for the text.
        padding = min(6.0, self.width / width / 4)
        commands: list[Any] = [
            ("GRID", (0, 0), (-1, -1), 0.4, colors.grey),
            ("VALIGN", (0, 0), (-1, -1), "TOP"),
            ("LEFTPADDING", (0, 0), (-1, -1), padding),
            ("RIGHTPADDING", (0, 0), (-1, -1), padding),
        ]
        if header:
            commands.append(("BACKGROUND", (0, 0), (-1, 0), colors.HexColor("#eeeeee")))
        table.setStyle(TableStyle(commands))
        return [table, Spacer(1, 6)]


def render(*, title: str, body_html: str, version: int, updated_at: datetime, author: str = "") -> bytes:
    """The PDF of a document: its title, a line with version and date, then its body."""
    vera()
    renderer = _Renderer()
    tree = _Tree()
    tree.feed(body_html)
    tree.close()
    meta = f"Version {version} · {updated_at:%Y-%m-%d %H:%M} UTC" + (f" · {author}" if author else "")
    story: list[Any] = [
        Paragraph(html.escape(title), renderer.styles["title"]),
        Paragraph(html.escape(meta), renderer.styles["meta"]),
        *renderer.blocks(tree.root.children),
    ]
    buffer = io.BytesIO()
    document = SimpleDocTemplate(
        buffer,
        pagesize=A4,
        leftMargin=MARGIN,
        rightMargin=MARGIN,
        topMargin=18 * mm,
        bottomMargin=18 * mm,
        title=title,
        author=author,
        creator="Atrium",
    )
    document.build(story)
    return buffer.getvalue()
