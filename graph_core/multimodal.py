"""Multi-part content: what an enhanced tool returns (`ToolResult`) and how it reaches a message.

Eino's enhanced tools return a `ToolResult` of typed parts (text, image, audio, video, file) instead of
one string. The ToolsNode turns it into a tool message whose `content` is empty and whose
`user_input_multi_content` holds the parts as message input parts (`ToolResult.to_message_input_parts`,
Eino `ToMessageInputParts`): `text` stays `text`, `image` becomes `image_url`, and so on. Media are a
URL or base64 data with a MIME type (`MediaPart`), as Eino's `MessagePartCommon`.

An agent handler's enhanced tool wrapper (`wrap_enhanced_invokable_tool_call`) gets the call's input as
a `ToolArgument` (its arguments JSON in `text`), as Eino's `EnhancedInvokableToolCallEndpoint` does.

Streamed results concatenate as Eino's `ConcatToolResults`: neighbouring text parts join into one, other
parts are kept as they are, and a non-text modality may come from one chunk only.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from graph_core.concat import concat_values

__all__ = [
    "MediaPart",
    "MessageInputPart",
    "MessagePartType",
    "ToolArgument",
    "ToolOutputPart",
    "ToolPartType",
    "ToolResult",
    "concat_input_parts",
    "concat_tool_results",
]

ToolPartType = Literal["text", "image", "audio", "video", "file"]
MessagePartType = Literal["text", "image_url", "audio_url", "video_url", "file_url"]

_MEDIA: dict[str, MessagePartType] = {
    "image": "image_url",
    "audio": "audio_url",
    "video": "video_url",
    "file": "file_url",
}


class MediaPart(BaseModel):
    """An image, audio clip, video or file: a `url`, or `base64_data` with its `mime_type` (Eino
    `MessagePartCommon`); `detail` is an image's quality hint, `name` a file's name."""

    model_config = ConfigDict(extra="forbid")

    url: str | None = None
    base64_data: str | None = None
    mime_type: str = ""
    detail: str | None = None
    name: str | None = None
    extra: dict[str, Any] = Field(default_factory=lambda: {})


class MessageInputPart(BaseModel):
    """One part of a message's multi-part content (Eino `MessageInputPart`): `text`, or the media
    field its `type` names (`image` for `image_url`, `audio` for `audio_url`, ...)."""

    model_config = ConfigDict(extra="forbid")

    type: MessagePartType
    text: str = ""
    image: MediaPart | None = None
    audio: MediaPart | None = None
    video: MediaPart | None = None
    file: MediaPart | None = None
    extra: dict[str, Any] = Field(default_factory=lambda: {})

    def media(self) -> MediaPart | None:
        """The media this part carries (None for text)."""
        return self.image or self.audio or self.video or self.file


class ToolOutputPart(BaseModel):
    """One part of a tool's result (Eino `ToolOutputPart`): `text`, or the media field its `type` names."""

    model_config = ConfigDict(extra="forbid")

    type: ToolPartType
    text: str = ""
    image: MediaPart | None = None
    audio: MediaPart | None = None
    video: MediaPart | None = None
    file: MediaPart | None = None
    extra: dict[str, Any] = Field(default_factory=lambda: {})

    @classmethod
    def of_text(cls, text: str) -> ToolOutputPart:
        return cls(type="text", text=text)

    @classmethod
    def of_media(
        cls,
        kind: Literal["image", "audio", "video", "file"],
        *,
        url: str | None = None,
        base64_data: str | None = None,
        mime_type: str = "",
    ) -> ToolOutputPart:
        """A media part: `of_media("image", base64_data=..., mime_type="image/png")`."""
        media = MediaPart(url=url, base64_data=base64_data, mime_type=mime_type)
        return cls.model_validate({"type": kind, kind: media})

    def to_message_input_part(self) -> MessageInputPart:
        """Eino `convToolOutputPartToMessageInputPart`: a media part must carry its media."""
        if self.type == "text":
            return MessageInputPart(type="text", text=self.text, extra=self.extra)
        media = getattr(self, self.type)
        if media is None:
            raise ValueError(f"{self.type} content is nil for tool part type {self.type}")
        return MessageInputPart.model_validate(
            {"type": _MEDIA[self.type], self.type: media, "extra": self.extra}
        )


class ToolArgument(BaseModel):
    """An enhanced tool call's input as a handler sees it (Eino `ToolArgument`): the arguments JSON in
    `text`. A record rather than a bare string so that it can grow (as Eino's may) without changing
    every wrapper's signature."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    text: str = ""


class ToolResult(BaseModel):
    """The structured, possibly multimodal result of an enhanced tool (Eino `ToolResult`)."""

    model_config = ConfigDict(extra="forbid")

    parts: list[ToolOutputPart] = Field(default_factory=lambda: [])

    def __init__(self, parts: Sequence[ToolOutputPart] = (), **data: Any) -> None:
        super().__init__(parts=list(parts), **data)

    def to_message_input_parts(self) -> list[MessageInputPart]:
        """The parts as a message's `user_input_multi_content` (Eino `ToMessageInputParts`)."""
        return [part.to_message_input_part() for part in self.parts]


def _join_text(parts: Sequence[Any], make: type[Any], text_type: str) -> Any:
    extras = [p.extra for p in parts if p.extra]
    extra: dict[str, Any] = concat_values(extras) if len(extras) > 1 else dict(extras[0]) if extras else {}
    return make(type=text_type, text="".join(p.text for p in parts), extra=extra)


def _merge_text_runs(parts: Sequence[Any], make: type[Any], text_type: str, keep_extra: bool) -> list[Any]:
    merged: list[Any] = []
    run: list[Any] = []
    for part in [*parts, None]:
        if part is not None and part.type == text_type:
            run.append(part)
            continue
        if len(run) == 1:
            merged.append(run[0])
        elif run:
            joined = _join_text(run, make, text_type)
            merged.append(joined if keep_extra else make(type=text_type, text=joined.text))
        run = []
        if part is not None:
            merged.append(part)
    return merged


def concat_tool_results(chunks: Sequence[ToolResult | None]) -> ToolResult:
    """Eino `ConcatToolResults`: neighbouring text parts join (their extras concatenated), other parts
    are kept; a non-text part type found in two chunks is an error."""
    seen: dict[str, int] = {}
    parts: list[ToolOutputPart] = []
    for index, chunk in enumerate(chunks):
        if chunk is None or not chunk.parts:
            continue
        for part in chunk.parts:
            if part.type != "text":
                if part.type in seen:
                    raise ValueError(
                        f"conflicting {part.type} parts found in chunk {seen[part.type]} and chunk {index}: "
                        "non-text modality parts cannot appear in multiple chunks"
                    )
                seen[part.type] = index
        parts.extend(chunk.parts)
    return ToolResult(_merge_text_runs(parts, ToolOutputPart, "text", keep_extra=True))


def concat_input_parts(parts: Sequence[MessageInputPart]) -> list[MessageInputPart]:
    """Eino `concatUserMultiContent`: neighbouring text parts join into one (without their extras)."""
    return _merge_text_runs(parts, MessageInputPart, "text", keep_extra=False)
