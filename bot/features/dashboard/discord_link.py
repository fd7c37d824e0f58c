"""What `/dashboard` answers on Discord: a link signed for the user (the rule; the adapter
only sends it, ephemerally)."""

from __future__ import annotations

from bot.features.dashboard.auth import Identity, Signer
from bot.present import dashboard_plan
from bot.present.i18n import Catalogue
from bot.present.plan import Reply


def discord_link(cat: Catalogue, lang: str, signer: Signer, public_url: str,
                 who: Identity) -> Reply:
    """Discord's /dashboard: a link signed for `who`, to the server's page when used in a
    server (the link's claims are the membership proof), else to the learner's."""
    if not public_url or not signer.enabled:
        return dashboard_plan.not_set_up(cat, lang)
    url = dashboard_plan.app_url(public_url, who.guild_id, "link=" + signer.link(who))
    return dashboard_plan.signed_link(cat, lang, url)


__all__ = ["discord_link"]
