"""Fit a terminal table to the console's width without cutting a figure.

rich shrinks a table that is wider than the console by cutting its cells (``70…``), and at 80
columns (a pipe, a CI log, a default terminal) that cut the very numbers a reader came for. The
tables here mark their figure columns ``no_wrap`` and let their label columns wrap; ``fit_table``
then tries three layouts in turn and returns the first whose narrowest rendering fits:

1. the table as built (boxed, as at a wide terminal);
2. the same table compact: no vertical rules, two spaces between columns, then one, so only the
   gaps shrink;
3. vertical: one block per row, each figure on its own ``heading  value`` line, which fits any
   width a label fits.

Every figure is printed in each layout, so a reader at 80 columns sees what one at 200 sees.
"""

from __future__ import annotations

from rich import box
from rich.console import Console, Group, RenderableType
from rich.measure import Measurement
from rich.table import Table
from rich.text import Text

__all__ = ["fit_table", "narrowest", "print_fitted"]

#: Wide enough that no table is measured against the console's own width.
_UNBOUNDED = 100_000


def narrowest(table: Table, console: Console) -> int:
    """The fewest columns ``table`` renders in without cutting a ``no_wrap`` cell or a word."""
    options = console.options.update_width(_UNBOUNDED)
    for column in table.columns:
        if column.no_wrap:
            # rich measures a cell's minimum as its longest word even where the column never
            # wraps, so "+0.0 +25.0" would look 5 wide; a figure column is as wide as its widest cell.
            column.min_width = max(Measurement.get(console, options, cell).maximum
                                   for cell in (column.header, *column.cells))
    return Measurement.get(console, options, table).minimum


def fit_table(table: Table, console: Console) -> RenderableType:
    """``table`` laid out for ``console.width``: as built, compact, or one block per row."""
    width = console.width
    if narrowest(table, console) <= width:
        return table
    table.box = box.SIMPLE_HEAD
    table.show_edge = False
    table.pad_edge = False
    table.padding = (0, 1)
    table.collapse_padding = True
    if narrowest(table, console) <= width:
        return table
    table.padding = (0, 0)  # one space between columns: the box's blank rule
    if narrowest(table, console) <= width:
        return table
    return _vertical(table)


def print_fitted(console: Console, table: Table) -> None:
    """Print ``table`` fitted to the console (see ``fit_table``)."""
    console.print(fit_table(table, console))


def _vertical(table: Table) -> RenderableType:
    """One block per row: its first cell as a heading, then each other column as ``heading  value``."""
    columns = table.columns
    cells = [list(c.cells) for c in columns]
    blocks: list[RenderableType] = []
    if table.title:
        blocks.append(table.title if isinstance(table.title, Text) else Text.from_markup(str(table.title), style="italic"))
    for index, row in enumerate(table.rows):
        block = Table.grid(padding=(0, 2))
        block.add_column(overflow="fold")
        block.add_column(justify="right", no_wrap=True)
        heading = cells[0][index] if cells else ""
        block.add_row(heading, "", style=row.style)
        for column, values in zip(columns[1:], cells[1:]):
            value = values[index]
            if isinstance(value, str) and not value.strip():
                continue
            header = column.header if isinstance(column.header, Text) else Text.from_markup(str(column.header))
            label = Text.assemble("  ", Text(header.plain.replace("\n", " "), style=header.style))
            block.add_row(label, value, style=row.style)
        blocks.append(block)
    if table.caption:
        blocks.append(table.caption if isinstance(table.caption, Text) else Text.from_markup(str(table.caption), style="dim"))
    return Group(*blocks)
