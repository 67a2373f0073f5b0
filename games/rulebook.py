"""The games list and the rules pages: each game's digest (``seeds/<slug>.md``) as a page, with pictures
of example positions drawn by the game's own renderer (``games/rules_examples.py``).

The digests are Markdown, rendered by markdown-it-py with raw HTML switched off (a tag in a digest is
shown as text), so the only markup a page carries that Markdown did not make is the example SVG our
engines draw. Every page is built once per process: the digests do not change while the site runs.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from django.conf import settings
from django.utils.html import escape
from django.utils.text import slugify
from markdown_it import MarkdownIt
from markdown_it.renderer import RendererHTML
from markdown_it.token import Token
from markdown_it.utils import EnvType, OptionsDict

from games import rules_examples
from games.engines import registry

# The block a digest puts where a picture belongs: ```example wallgo-turn-before wallgo-turn``` (several
# names draw the pictures side by side).
EXAMPLE_FENCE = "example"

# Our own words, written from each digest: what the game is about, for the games list.
SUMMARIES: dict[str, str] = {
    "wallgo": (
        "A territory game on a 7-by-7 board. Each player puts a few tokens on the board, then every turn "
        "moves one of them up to two squares and builds a wall. Walls never come down, so the board "
        "splits slowly into closed regions, and a region that holds only your tokens scores a point per "
        "square. The game stops when the walls run out or every region with tokens has a single owner."
    ),
    "stairways": (
        "Heroes wander an underground maze, running for any treasure they can see, and each player is a "
        "city at the top of one stairway. Play cards to slide and pivot walls (pushing whatever stands "
        "in the way) or to drop jewels and swords where a hero will chase them, and bid for the wonders "
        "that decide who may play which suit. A hero who climbs your stairway scores for you, with what "
        "it carries, if the giant and the rats do not get it first. Hands stay hidden."
    ),
    "thewall": (
        "A hex skirmish at the Wall: the Night's Watch and Mance Rayder's Wildlings against the White "
        "Walkers and their Wights. Four leaders take turns, each using up to four units to move, fight "
        "and work their specials; a fight is a die plus attack against a die plus defence, and only "
        "dragonglass or Valyrian steel kills a true Other. The Others win if a Wight blows the Horn to "
        "bring the Wall down and a true Other then holds the south; the living win by slaying every true "
        "Other, or by holding out until the last round."
    ),
    "wildlings": (
        "Great Houses of Westeros fight over Castles while the wildlings gather beyond the Wall. Each "
        "round Westeros cards raise the threat and bend the rules, then every House gives a secret order: "
        "gather Power, raid, march on a rival's Castles, defend or muster. When the wildlings attack, "
        "every House bids Power in secret for the Night's Watch: the highest bidder may be rewarded, the "
        "lowest punished. Hold seven Castles at once, or the most after ten rounds."
    ),
    "greatwall": (
        "Generals of rival clans defend three sections of the Great Wall against the Horde for six years "
        "while competing for Honor. In summer each picks a secret Command card; in autumn their clerks "
        "gather resources, recruit soldiers and build wall levels and black-powder war machines; in "
        "winter the soldiers wound the Horde cards and the Horde assaults every section. Shame costs "
        "Honor, and if the whole wall falls, everyone loses. With one or two players the game itself "
        "plays an extra general."
    ),
}


@dataclass(frozen=True)
class GameCard:
    slug: str
    title: str
    min_players: int
    max_players: int
    moves_per_player: int
    summary: str
    board: str  # SVG of an example position

    @property
    def players(self) -> str:
        if self.min_players == self.max_players:
            return f"{self.min_players} players"
        return f"{self.min_players} to {self.max_players} players"


@dataclass(frozen=True)
class RulesPage:
    slug: str
    title: str
    html: str
    contents: list[tuple[str, str]]  # (anchor, heading) of the digest's ## headings


def _digest_path(slug: str) -> Path:
    return Path(settings.BASE_DIR) / "seeds" / f"{slug}.md"


def site_games() -> list[str]:
    """The site's games in registry order; engines that tests register for themselves are not among them."""
    return [slug for slug, path in registry.ENGINES.items() if path.startswith("games.engines.")]


def has_rules(slug: str) -> bool:
    return slug in site_games() and _digest_path(slug).is_file()


def rules_links() -> list[tuple[str, str]]:
    """(slug, title) of every game with a rules page, for the links to them."""
    return [(slug, registry.get_engine(slug).title) for slug in site_games() if has_rules(slug)]


@cache
def game_card(slug: str) -> GameCard:
    engine = registry.get_engine(slug)
    return GameCard(
        slug=slug,
        title=engine.title,
        min_players=engine.min_players,
        max_players=engine.max_players,
        moves_per_player=rules_examples.moves_per_player(slug),
        summary=SUMMARIES.get(slug, ""),
        board=_illustration(rules_examples.showcase(slug), f"card-{slug}"),
    )


def game_cards() -> list[GameCard]:
    return [game_card(slug) for slug in site_games()]


# --- the rules pages ----------------------------------------------------------------------------------
def _markdown() -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": False}).enable("table")
    default_fence = md.renderer.rules["fence"]

    def fence(
        renderer: RendererHTML, tokens: list[Token], idx: int, options: OptionsDict, env: EnvType
    ) -> str:
        names = tokens[idx].info.split()
        if names[:1] == [EXAMPLE_FENCE] and len(names) > 1:
            figure = _figure(names[1:])
            if figure:
                return figure
        return default_fence(tokens, idx, options, env)

    def table_open(
        renderer: RendererHTML, tokens: list[Token], idx: int, options: OptionsDict, env: EnvType
    ) -> str:
        # A wide table scrolls within its own frame on a phone, and a keyboard can reach the frame.
        frame = '<div class="table-scroll" tabindex="0" role="region" aria-label="Table">'
        return frame + renderer.renderToken(tokens, idx, options, env)

    def table_close(
        renderer: RendererHTML, tokens: list[Token], idx: int, options: OptionsDict, env: EnvType
    ) -> str:
        return renderer.renderToken(tokens, idx, options, env) + "</div>\n"

    md.add_render_rule("fence", fence)
    md.add_render_rule("table_open", table_open)
    md.add_render_rule("table_close", table_close)
    return md


def _figure(names: list[str]) -> str:
    """The pictures named, side by side, each with its caption; empty if one is not an example we can
    draw."""
    panels = []
    for name in names:
        try:
            caption, svg = rules_examples.example(name)
        except (KeyError, rules_examples.NoExample):
            return ""
        panels.append(
            f'<figure class="example-panel" data-example="{escape(name)}">{_illustration(svg, f"ex-{name}")}'
            f'<figcaption class="example-caption">{escape(caption)}</figcaption></figure>'
        )
    return f'<div class="rules-example">{"".join(panels)}</div>\n'


_INNER_ROLES = re.compile(r'\s(?:role|aria-[a-z]+|tabindex)="[^"]*"')


def _illustration(svg: str, prefix: str) -> str:
    """A board drawn to be looked at, not played on: the picture keeps its own role and label, its parts
    lose theirs (places to click, which mean nothing in a picture), and its ids are made unique to
    ``prefix``."""
    head, _, body = svg.partition(">")
    return _scoped_ids(f"{head}>{_INNER_ROLES.sub('', body)}", prefix)


_ID = re.compile(r'\bid="([^"]+)"')


def _scoped_ids(svg: str, prefix: str) -> str:
    """The SVG with its element ids (and the references to them) made unique to ``prefix``, so that two
    pictures of one game on a page never share an id."""
    for name in set(_ID.findall(svg)):
        new = f"{prefix}-{name}"
        svg = re.sub(
            rf'(\b(?:id|aria-labelledby|aria-describedby)="){re.escape(name)}"', rf'\g<1>{new}"', svg
        )
        svg = svg.replace(f"#{name})", f"#{new})").replace(f'href="#{name}"', f'href="#{new}"')
    return svg


def _heading_text(inline: Token) -> str:
    return "".join(child.content for child in inline.children or [] if child.type in ("text", "code_inline"))


# A digest's sections for those who build the site (its state, the computer's evaluation, where each rule
# comes from) end their heading with this; the rules page leaves them out, and the opening paragraphs
# before the first section too (the sources and the code's files; the game list has the summary).
FOR_DEVELOPERS = "(for developers)"


def _for_players(tokens: list[Token]) -> list[Token]:
    kept: list[Token] = []
    skipping = True
    for index, token in enumerate(tokens):
        if token.type == "heading_open" and token.tag == "h2":
            skipping = _heading_text(tokens[index + 1]).endswith(FOR_DEVELOPERS)
        if not skipping:
            kept.append(token)
    return kept


@cache
def rules_page(slug: str) -> RulesPage:
    """The digest of ``slug`` as HTML with anchored headings and its table of contents; UnknownGame for a
    slug that is not one of the site's games with a digest."""
    if not has_rules(slug):
        raise registry.UnknownGame(f"There is no game called {slug!r}.")
    md = _markdown()
    tokens = md.parse(_digest_path(slug).read_text(encoding="utf-8"))
    if tokens and tokens[0].type == "heading_open" and tokens[0].tag == "h1":
        tokens = tokens[3:]  # the digest's own title: the page has its own (open, text, close)
    tokens = _for_players(tokens)
    contents: list[tuple[str, str]] = []
    used: set[str] = set()
    for index, token in enumerate(tokens):
        if token.type != "heading_open" or token.tag not in ("h2", "h3"):
            continue
        text = _heading_text(tokens[index + 1])
        anchor = base = slugify(text) or "section"
        number = 2
        while anchor in used:
            anchor, number = f"{base}-{number}", number + 1
        used.add(anchor)
        token.attrSet("id", anchor)
        if token.tag == "h2":
            contents.append((anchor, text))
    html = md.renderer.render(tokens, md.options, {})
    return RulesPage(slug=slug, title=registry.get_engine(slug).title, html=html, contents=contents)
