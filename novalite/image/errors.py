"""The image service's errors, with Glance's messages and the status Glance answers."""

from __future__ import annotations

from novalite.exception import NovaliteException


class ImageError(NovaliteException):
    code = 400
    safe = True


class ImageNotFound(ImageError):
    msg_fmt = "No image found with ID %(image_id)s"
    code = 404


class Duplicate(ImageError):
    msg_fmt = "Image with identifier %(image_id)s already exists!"
    code = 409


class InvalidStatusTransition(ImageError):
    msg_fmt = "Image status transition from %(cur_status)s to %(new_status)s is not allowed"
    code = 409


class FormatsMissing(ImageError):
    msg_fmt = "Propert%(plural)s %(names)s must be set prior to saving data."


class ImageGone(ImageError):
    msg_fmt = ("Image %(image_id)s could not be found after upload. The image may have "
               "been deleted during the upload.")
    code = 410


class ImageTooLarge(ImageError):
    msg_fmt = "The provided image is too large."
    code = 413


class Protected(ImageError):
    msg_fmt = "Image %(image_id)s is protected and cannot be deleted."
    code = 403


class NotAllowedInStatus(ImageError):
    msg_fmt = "Not allowed to %(action)s image in status '%(status)s'"
    code = 403


class Deactivated(ImageError):
    msg_fmt = "The requested image has been deactivated. Image data download is forbidden."
    code = 403


class NoData(ImageError):
    msg_fmt = "The requested image has no data"
    code = 204


class MemberNotFound(ImageError):
    msg_fmt = "%(member_id)s not found in the member list of the image %(image_id)s."
    code = 404


class MemberDuplicate(ImageError):
    msg_fmt = "Member %(member_id)s is duplicated for image %(image_id)s"
    code = 409


class NotShared(ImageError):
    msg_fmt = "Only shared images have members."
    code = 403


class TagNotFound(ImageError):
    msg_fmt = "Tag %(tag)s not found."
    code = 404


class Forbidden(ImageError):
    msg_fmt = "You are not authorized to complete %(action)s action."
    code = 403
