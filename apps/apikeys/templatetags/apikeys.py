from django import template

register = template.Library()


@register.filter
def usd(micro_usd: float | None) -> str:
    """Micro-dollars as dollars: $1,234.50, or with four decimals below a cent ($0.0042)."""
    if micro_usd is None:
        return "—"
    dollars = micro_usd / 1_000_000
    if 0 < micro_usd < 10_000:
        return f"${dollars:.4f}"
    return f"${dollars:,.2f}"


@register.filter
def cents_usd(cents: int | None) -> str:
    if cents is None:
        return "—"
    return f"${cents / 100:,.2f}"
