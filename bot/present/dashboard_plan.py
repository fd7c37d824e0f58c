"""What `/dashboard` shows: one card with the button that opens the page.

Telegram opens a Mini App only from a `web_app` button, and those work only in private
chats; in a group the button is a deep link into the private chat, which answers with the
group's `web_app` button. Discord gets a link button carrying a signed token in the URL's
fragment (browsers never send a fragment to a server, so no proxy log keeps it).
"""

from __future__ import annotations

from urllib.parse import quote

from bot.present.i18n import Catalogue
from bot.present.plan import Button, Card, Reply

APP_PATH = "/app"


def app_url(public_url: str, group: str | None = None, fragment: str = "") -> str:
    """The page's address: `<public_url>/app[?group=<id>][#<fragment>]`."""
    url = public_url.rstrip("/") + APP_PATH
    if group is not None:
        url += "?group=" + quote(group, safe="")
    return url + (f"#{fragment}" if fragment else "")


def not_set_up(cat: Catalogue, lang: str) -> Reply:
    """web.public_url (or the web server) is not configured."""
    return Reply(send=(Card(cat.t(lang, "dashboard.off")),))


def mini_app(cat: Catalogue, lang: str, url: str, *, group: bool = False) -> Reply:
    """A private chat: one `web_app` button (the learner's page, or a group's)."""
    text = cat.t(lang, "dashboard.group_open" if group else "dashboard.open")
    label = cat.t(lang, "dashboard.group_button" if group else "dashboard.button")
    return Reply(send=(Card(text, rows=((Button(label, "", "primary", web_app=url),),)),))


def group_link(cat: Catalogue, lang: str, deep_link: str) -> Reply:
    """A group chat: a link into the private chat, which opens the group's page there."""
    button = Button(cat.t(lang, "dashboard.group_button"), "", "primary", url=deep_link)
    return Reply(send=(Card(cat.t(lang, "dashboard.group_open"), rows=((button,),)),),
                 public=True)


def signed_link(cat: Catalogue, lang: str, url: str) -> Reply:
    """Discord: an ephemeral note with a link that only this user may use, for 10 minutes."""
    button = Button(cat.t(lang, "dashboard.button"), "", "primary", url=url)
    return Reply(send=(Card(cat.t(lang, "dashboard.link"), rows=((button,),)),))


__all__ = ["APP_PATH", "app_url", "group_link", "mini_app", "not_set_up", "signed_link"]
