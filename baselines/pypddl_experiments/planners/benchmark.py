"""The 102 IPC-2000 Blocksworld tasks of the paper's experiment: where they
come from, the SHA-256 of every file, and their benchmark order.

Source: the repository potassco/pddl-instances (a consistent repackaging of
the IPC 1998-2014 benchmarks, https://github.com/potassco/pddl-instances),
folder ``ipc-2000/domains/blocks-strips-typed`` (``domain.pddl`` and
``instances/instance-N.pddl``), pinned at commit :data:`COMMIT`.
``instance-1`` .. ``instance-35`` are the official track-1 problems
probBLOCKS-4-0 .. probBLOCKS-17-0, ``instance-36`` .. ``instance-102`` the
"additional" problems probblocks-17-1 .. probblocks-50-1 (4 to 50 blocks);
the benchmark order, the paper's, is the instance number. The hashes were
computed from the files at that commit. :func:`fetch_benchmark` downloads
the files (or copies them from a local clone or copy) into one folder, as
``pypddl reference`` reads it, and checks every file's hash.
"""

from __future__ import annotations

import hashlib
import shutil
import tempfile
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

__all__ = ["COMMIT", "FILES", "FOLDER", "ORDER", "ORIGINAL_NAMES", "REPOSITORY", "BenchmarkError", "FetchReport",
           "check_benchmark", "fetch_benchmark", "source_url"]

REPOSITORY = "potassco/pddl-instances"
COMMIT = "cf19edf7c53d1540ddbb396c642595e0926ee552"
"""The pinned commit (2017-11-28; the repository's last one when pinned)."""
FOLDER = "ipc-2000/domains/blocks-strips-typed"
_RAW = "https://raw.githubusercontent.com"

# (file name in the output folder, SHA-256, the original IPC-2000 file name)
_TABLE: tuple[tuple[str, str, str], ...] = (
    ("domain.pddl", "3ef85edaf88fac8dd668e6e0b49657551b94c37940d8c424eb9c27429f980d3d", ""),
    ("instance-1.pddl", "a8985a24040f704a671ff4bc57655ab23252978473b4181db12bc3514ca46cec", "probBLOCKS-4-0.pddl"),
    ("instance-2.pddl", "60116bab289cd3f8275296c68231987becf8114077f3ed03bc066b12c6d9db27", "probBLOCKS-4-1.pddl"),
    ("instance-3.pddl", "68a93fbcdf24ebfb3cdb8718da2f74cb2cac5c224bcf1db7bb237b496edcc319", "probBLOCKS-4-2.pddl"),
    ("instance-4.pddl", "cb8577dcf116ae2cfaf3c3fd628c944e07e107b8063501177c7ebbf7bfc365d7", "probBLOCKS-5-0.pddl"),
    ("instance-5.pddl", "59c0c700eabb5b5d8e787ebf51c070b7ecf1b62c36cd69a2e145ce2fa6f8bf02", "probBLOCKS-5-1.pddl"),
    ("instance-6.pddl", "5e35c771268e5560c1faffabc13d02870b770ff0d87c866f49afc9431e3ef6fe", "probBLOCKS-5-2.pddl"),
    ("instance-7.pddl", "7307ac3ee3b62c8534b188dd01a31ee7847410c1921616a899b76a187713fdaa", "probBLOCKS-6-0.pddl"),
    ("instance-8.pddl", "c4a84e10cbe311aa39a6155ab0f9d7f4c8dcac94c87e5dce0995d6c756d42403", "probBLOCKS-6-1.pddl"),
    ("instance-9.pddl", "b96fb816db32d3bbc9d9aa12f61614911532a2f25873c8dab8df54a94c789efd", "probBLOCKS-6-2.pddl"),
    ("instance-10.pddl", "7adca92f5fd60531ee8d37cfa37e18de91096af3dd331fcd015ff58346bdefe5", "probBLOCKS-7-0.pddl"),
    ("instance-11.pddl", "36d12394b6d80d5a866340ac2001115c5219f7d7fddc584fc6a3b62608aecb1b", "probBLOCKS-7-1.pddl"),
    ("instance-12.pddl", "1f4ddd547f93682426088b7aeb656d6d5171b43b0294febd6612d09cad7d7667", "probBLOCKS-7-2.pddl"),
    ("instance-13.pddl", "3253b91a410d020977508ae72c780a706d557701367313fa9c5d8f5c856f1bc4", "probBLOCKS-8-0.pddl"),
    ("instance-14.pddl", "6f1a2aa3c0816e59f688081989bcbdfd370a23ff1bedbbf3e0697fd0057d9247", "probBLOCKS-8-1.pddl"),
    ("instance-15.pddl", "c0907fb4f9667d6e9cac6ba805ef1dfb036dbf7f03ca5e2eee3ba69b471946ad", "probBLOCKS-8-2.pddl"),
    ("instance-16.pddl", "5a1ca3911e22d2546362899c8eeabb683633b99c03dcd6c129413639452a0954", "probBLOCKS-9-0.pddl"),
    ("instance-17.pddl", "577858b8f02ae8d047759100712cb56a8287bbddd2067b0b3ba5d8222211b68e", "probBLOCKS-9-1.pddl"),
    ("instance-18.pddl", "8ef8ad678196769555f49f27870d6d96dbab883e3c06afc39124cb654d1eb9e4", "probBLOCKS-9-2.pddl"),
    ("instance-19.pddl", "e99e56895cdee3b1f6ae3320c36e736796ac8b48d718633241cf149b49bf7740", "probBLOCKS-10-0.pddl"),
    ("instance-20.pddl", "1b36371741d221327999584a892e2158bdfa6e7a2fe3ce6465966fe19144ba3c", "probBLOCKS-10-1.pddl"),
    ("instance-21.pddl", "60fe28b2280d0be3caeedcf0fba9b46012c9b6e0d81bd7638aa564181f8e7751", "probBLOCKS-10-2.pddl"),
    ("instance-22.pddl", "33174475a863b7396b53b729b9ae32105febf97ed22390be34b9d7be53c2f14f", "probBLOCKS-11-0.pddl"),
    ("instance-23.pddl", "194c91be2195c64f8485e9395e2ca981c10c0418d1cf8b6684ff7170b034193a", "probBLOCKS-11-1.pddl"),
    ("instance-24.pddl", "23db3f506f4e65885ee929052ec4b733efebe08965b4f3eeaaf83d91fb72b296", "probBLOCKS-11-2.pddl"),
    ("instance-25.pddl", "5c4f47f766c08456f6f6ec6545a809b40f0c7cc7a33d2fc9cf203a9dcdd55772", "probBLOCKS-12-0.pddl"),
    ("instance-26.pddl", "3598efa86bf4dbee615d4b9418fc9a1849281bb1b2a55d5d5c6aa8f91ffcf0d1", "probBLOCKS-12-1.pddl"),
    ("instance-27.pddl", "6ce185d889521ad36c605a9c8b0d199f2187da98939423bf1223d1e2c9d04735", "probBLOCKS-13-0.pddl"),
    ("instance-28.pddl", "4573e89a0002373f6949204051281c88b3aefba0f98cfb96e64d9d2df87dbd57", "probBLOCKS-13-1.pddl"),
    ("instance-29.pddl", "0372f10ae36792c81123ec04bcdd11e976fc24d6cced21a049787e6d764f3e0b", "probBLOCKS-14-0.pddl"),
    ("instance-30.pddl", "c10d5d19353ad73c9e59b47c6db4e114729943b946745869143f45993340da2b", "probBLOCKS-14-1.pddl"),
    ("instance-31.pddl", "e4ad2d60d8e367258f3dd578b126aefca79965d9289f79838e0c00572b63ddd0", "probBLOCKS-15-0.pddl"),
    ("instance-32.pddl", "77c8b417cf57029eea0c4fc38074ab5cc0201671578fe56a6a8cb537b3d03ee8", "probBLOCKS-15-1.pddl"),
    ("instance-33.pddl", "6701235d299e3c5c27d248db39767f87b59dea896980aad8b149b2ca3143e9a2", "probBLOCKS-16-1.pddl"),
    ("instance-34.pddl", "12d2c854ec82f3fac7ac07ec9eb49159bbececb89ddbf7e015da3569edd1f47e", "probBLOCKS-16-2.pddl"),
    ("instance-35.pddl", "62a1fb8b461d4768e9d51ed69764a6dba43a544b4373525dd2e6206728567cfd", "probBLOCKS-17-0.pddl"),
    ("instance-36.pddl", "2075ae5266754120fe0bf2b99007169f8e84becb2478477c57761c56df07c4b1", "probblocks-17-1.pddl"),
    ("instance-37.pddl", "a5022ce4cfc7bc6b8974bd00838e636fed85912f43d7b19fc02f33c2e76d0b9a", "probblocks-18-0.pddl"),
    ("instance-38.pddl", "77dc9b500f5bf3d1294bd7c566126167d1b7bce512090eb00cc9a48c43d6c44e", "probblocks-18-1.pddl"),
    ("instance-39.pddl", "06cc06af23da24540ee6b668ed766f62a8092f1374a82e58e4d1d01fc2cb69d9", "probblocks-19-0.pddl"),
    ("instance-40.pddl", "c191f91b307ccea762e59b04cdd27e1866a544a13d64fb18783354f3dbd695ee", "probblocks-19-1.pddl"),
    ("instance-41.pddl", "4881b8ea894074db36bfef1cece7f6111340b113d406b5e504c4d6af7a0275ce", "probblocks-20-0.pddl"),
    ("instance-42.pddl", "5b5ba8fb87ff6ae8073d969ff67ac498596e6f3f5efed5094671a7f993790d97", "probblocks-20-1.pddl"),
    ("instance-43.pddl", "7b0dd08da394b6f4e28a7581ce05f36a7a614d8659d9d268c790b45c699b89bf", "probblocks-21-0.pddl"),
    ("instance-44.pddl", "6d77ffd455a07d25e2b7b74640a6005897485e127ee73515a59db79476982e0d", "probblocks-21-1.pddl"),
    ("instance-45.pddl", "2494237f164c53502646a3c7c8a66845f56dd3d7852d25052c2fbdc76f6fde3d", "probblocks-22-0.pddl"),
    ("instance-46.pddl", "2ac8c230cd8019ee3da4bcd71258c55ece79a74c8fdfd589d813bf10ac7d8361", "probblocks-22-1.pddl"),
    ("instance-47.pddl", "d6866bb9e959d32f55a96b8be395aca03b8fbf4a905abfe5ef9216fc8a3de844", "probblocks-23-0.pddl"),
    ("instance-48.pddl", "98bc817f79af76de0729ac8aa4ca5a090093f74ceeaaebcedf5e0a036c34d737", "probblocks-23-1.pddl"),
    ("instance-49.pddl", "03efeadd3b36d62eab75f671f1ed49044178b8a323ee9ccd3b848f38b7c3d2f3", "probblocks-24-0.pddl"),
    ("instance-50.pddl", "4c829d86c6e0236b50aac3e863036183a520be2cbe956f8f90ee763b6066ee38", "probblocks-24-1.pddl"),
    ("instance-51.pddl", "76ac58f44a0c2c983980ed47d78fe5f741de757387b3d92516b30af1db589f9b", "probblocks-25-0.pddl"),
    ("instance-52.pddl", "095b1e60787b9266e463ce2d59953721ca84884745fa6b7e1e97a92f566b4f34", "probblocks-25-1.pddl"),
    ("instance-53.pddl", "b096ec77ead30723110f46f49e229d212a1cb1298c47f9ea4385991445c3a80a", "probblocks-26-0.pddl"),
    ("instance-54.pddl", "2c39217500306b5b24a374ef81b6eabdffc210ba72501fd0b6de8fed36d57cf5", "probblocks-26-1.pddl"),
    ("instance-55.pddl", "9f1c3be5774a23860f2fb2cb8ecc0eefc5db30070684cee6788411c77c88d85d", "probblocks-27-0.pddl"),
    ("instance-56.pddl", "2d95c42acd632d2c569bd385322b4c8300af95a88553fbb7b91454e84d4658ed", "probblocks-27-1.pddl"),
    ("instance-57.pddl", "e987e3b9c1bc74c4ab29bcb4d5f75ae08475fba3a69dc4c06eec4ae05b27d3b3", "probblocks-28-0.pddl"),
    ("instance-58.pddl", "eed7db0fd89c98abde2822cdf1d1c24fa41b5962cc871b2953addc5283b621c4", "probblocks-28-1.pddl"),
    ("instance-59.pddl", "6eb297f16b377509e144fb913c3064cc21905196124dd59449d777681f7c7423", "probblocks-29-0.pddl"),
    ("instance-60.pddl", "2327c5e89f0271920b370baae7c278cb99090a6eefe36a87b7f6d97b9171018d", "probblocks-29-1.pddl"),
    ("instance-61.pddl", "889b9d60d5092a1c3122341dc3c7f4c166e79e021e42471d38baedd5d4be6edf", "probblocks-30-0.pddl"),
    ("instance-62.pddl", "50ce5cf06933536a1dc50787ad7be6f1650fbf665752f45a700de85edcf05cf9", "probblocks-30-1.pddl"),
    ("instance-63.pddl", "7a784685903aeecf8c94f38ca5acefd2757a80a752ded3cdccd4f2d6dbbfa399", "probblocks-31-0.pddl"),
    ("instance-64.pddl", "564fed2dd09c81cb7abd29cb2ac07e9e93c61fa53cb191c02c03a5a095449031", "probblocks-31-1.pddl"),
    ("instance-65.pddl", "a8a8fa88461fd23716422fd4272049e6ee6ffd2af631582ed692ea35a9005bfe", "probblocks-32-0.pddl"),
    ("instance-66.pddl", "fff2895c1026fdf52b1f0d98fe1ad2f28dfd1ea7c50a88318efe694fe2d0b5d0", "probblocks-32-1.pddl"),
    ("instance-67.pddl", "0413a8fb44beb0fd0f23e5eb53779ad3911bc456ca9739e2738cb003dae894d7", "probblocks-33-0.pddl"),
    ("instance-68.pddl", "a945a2a46a56d95108288594db30e9dc41ea0c58e9a9b91cc2415c11fd9465b4", "probblocks-33-1.pddl"),
    ("instance-69.pddl", "f752665315712845d4642aa601b188498d4202733103ebcff36732611861180e", "probblocks-34-0.pddl"),
    ("instance-70.pddl", "8525577896c52bf5778b4f40de250a601f9d3342a925a8e0f4510261f44dc10c", "probblocks-34-1.pddl"),
    ("instance-71.pddl", "fffc3680d43b7ba4106955b271c1ddfc78bb5b51d2e2340d9670a9937c7494d8", "probblocks-35-0.pddl"),
    ("instance-72.pddl", "e53a5119a22f7b78e4fbaf1bc068ebbcc57c435777bf47656a166ad5e648f477", "probblocks-35-1.pddl"),
    ("instance-73.pddl", "0cb085e207d4350dc1d61e19aaf1e5b74f1a9b76d4b8005604544a32eed2d37b", "probblocks-36-0.pddl"),
    ("instance-74.pddl", "20fb63aeb1d8c83212ba60a867b7b27364e18977838828d51383180df6910596", "probblocks-36-1.pddl"),
    ("instance-75.pddl", "d3e8d36c18ca797ca109717abe466f38ec3e58f481bad352abac026f802e5b27", "probblocks-37-0.pddl"),
    ("instance-76.pddl", "cba0cb82fd3ade279df3138efcbee3817f01ec3ba28e5634a335112f9354bcf5", "probblocks-37-1.pddl"),
    ("instance-77.pddl", "bd107f62cd83958b1a213efeea280b1fa6f5b41c786e3d5f4f605074aa65fcfb", "probblocks-38-0.pddl"),
    ("instance-78.pddl", "2a3d55d90a88a8a3d11ffa791891250063057b98398bb1fdf0300ea085f1897f", "probblocks-38-1.pddl"),
    ("instance-79.pddl", "907bdb29bf26caf8ff30923ceefa442c210f8ce43800b28ad726982fa67297fa", "probblocks-39-0.pddl"),
    ("instance-80.pddl", "50a0cbbb0f06285214600e9af6d01cd3d6f69fd9d6e7112977af8f63b86eecb9", "probblocks-39-1.pddl"),
    ("instance-81.pddl", "ecf7ecea48cc377b820c7850aecf7d8ce86da5a761e42977dd81505e6e1a12a0", "probblocks-40-0.pddl"),
    ("instance-82.pddl", "2abc00b6576b3d257fb5d5ab11e34f6e2617720aba2450fb09f75291b9c39e1d", "probblocks-40-1.pddl"),
    ("instance-83.pddl", "5f55aa8106d4f5ea2d5d8910651cf864e7162a5300b1e86d8908329d8dac0dab", "probblocks-41-0.pddl"),
    ("instance-84.pddl", "7e65acb442c34502b572ba95e52fa987a384e1089e4dac3bae348bf47c5f5d13", "probblocks-41-1.pddl"),
    ("instance-85.pddl", "38c64eba2f8cfdd72604d1343e9c1aed26af6ddf44b2e0e7e1e270951f30c294", "probblocks-42-0.pddl"),
    ("instance-86.pddl", "10c0a45ad417b42be0572860cbb54b4c33d510e35f87902eef59a8a6c1c79981", "probblocks-42-1.pddl"),
    ("instance-87.pddl", "6e057fcbf4f975154572a58b64ab17292421d2adbfc43a3d72ee33e41d4a39c6", "probblocks-43-0.pddl"),
    ("instance-88.pddl", "4a90764cbdb5041a644e7fec058b562936290b5d7eb2ed2d9d8c10372ee9e9aa", "probblocks-43-1.pddl"),
    ("instance-89.pddl", "29fe67457eee8e0f821e3b1d2ccc0e0dfb49983b23039602d54aad5befb4183e", "probblocks-44-0.pddl"),
    ("instance-90.pddl", "04974ac913c7d851362cc1d2c7b00c1a24ce7d79236723454b87d31384712f21", "probblocks-44-1.pddl"),
    ("instance-91.pddl", "37b2094dfa654d4564d4950474ee4eb5c60742e8e8c2b831ae8d38aba4e664cb", "probblocks-45-0.pddl"),
    ("instance-92.pddl", "e18d6c4ed4365bf6295996a4fd458b4b12e3cd947f67bef8dc1c413d114e9a2c", "probblocks-45-1.pddl"),
    ("instance-93.pddl", "3a7e58ea0a51c59fd78e5a1b33054e8e24aa69384ac8331309c11436dafaee05", "probblocks-46-0.pddl"),
    ("instance-94.pddl", "1a2b6e364f30a5d8b55e2ba59e93a5ee874f4e659a7fbf0137609ef778fe3096", "probblocks-46-1.pddl"),
    ("instance-95.pddl", "5f043e20e3437001643dc56cdb7a2a204a9057367fd0538210642260ea86b5a9", "probblocks-47-0.pddl"),
    ("instance-96.pddl", "186c8c61c0cc98c072d3214c52adbd119b064341d6521298b72af0941d11e9a9", "probblocks-47-1.pddl"),
    ("instance-97.pddl", "bb4dced9a8713c260218ab703319abf6803a7a1ddd0db64046643cc88efad45e", "probblocks-48-0.pddl"),
    ("instance-98.pddl", "745b1423c17c4f5f2611e7497e908a8e289e8375e68438686d3457c3c7b9832b", "probblocks-48-1.pddl"),
    ("instance-99.pddl", "f518fe5b36382b10159c3dba35407e635bde2ff0dd773c50e77510dbf9b1a0ed", "probblocks-49-0.pddl"),
    ("instance-100.pddl", "e6c0747dbf39b03cbddeb3f3106e09be1a280183bd60c34842e326658826523b", "probblocks-49-1.pddl"),
    ("instance-101.pddl", "ecbea2afabb9b3edeff452f1ac303976bd1eba48928b9a47b698b4f8b3a0a1f8", "probblocks-50-0.pddl"),
    ("instance-102.pddl", "b299876c3a18d4d203b17e30a7d37fca146b7c3368abefb6a8df4a340afc062a", "probblocks-50-1.pddl"),
)
FILES: dict[str, str] = {name: digest for name, digest, _ in _TABLE}
"""File name -> SHA-256 hex digest: ``domain.pddl`` and the 102 problems."""
ORDER: tuple[str, ...] = tuple(name.removesuffix(".pddl") for name, _, _ in _TABLE[1:])
"""The benchmark order (the paper's): instance-1 .. instance-102."""
ORIGINAL_NAMES: dict[str, str] = {name: original for name, _, original in _TABLE[1:]}
"""Each problem's file name in the IPC-2000 archive (probBLOCKS-4-0.pddl ...)."""


class BenchmarkError(Exception):
    """The benchmark cannot be fetched or does not check (the message says what to do)."""


def _upstream_path(name: str) -> str:
    return name if name == "domain.pddl" else f"instances/{name}"


def source_url(name: str) -> str:
    """Where a file is downloaded from (the pinned commit's raw file)."""
    return f"{_RAW}/{REPOSITORY}/{COMMIT}/{FOLDER}/{_upstream_path(name)}"


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@dataclass
class FetchReport:
    folder: Path
    fetched: int  # files written
    present: int  # files already there with the right hash


def _local_file(source: Path, name: str) -> Path:
    """A file of a local copy: a clone of the repository (its folder layout)
    or a flat folder (``domain.pddl`` and ``instance-N.pddl`` side by side)."""
    for candidate in (source / FOLDER / _upstream_path(name), source / _upstream_path(name), source / name):
        if candidate.is_file():
            return candidate
    raise BenchmarkError(f"{name} is not in {source} (give a clone of {REPOSITORY} or a folder holding the files)")


def _download(name: str, timeout: float) -> bytes:
    url = source_url(name)
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:  # noqa: S310 (a fixed https URL)
            return response.read()  # type: ignore[no-any-return]
    except (urllib.error.URLError, TimeoutError, OSError) as err:
        reason = getattr(err, "reason", err)
        raise BenchmarkError(
            f"cannot download {url}: {reason}. Are you offline? Get the folder {FOLDER} of "
            f"https://github.com/{REPOSITORY} at commit {COMMIT} (e.g. git clone, then git checkout {COMMIT[:12]}) "
            "and pass it with --from; the files are checked the same way") from None


def fetch_benchmark(out: Path, *, source: Path | None = None, timeout: float = 30.0) -> FetchReport:
    """Put the 103 files into ``out`` (created), downloading each from the
    pinned commit, or copying from ``source`` (a clone or a copy), and check
    every one's SHA-256 before it is written; files already there with the
    right hash are kept. :class:`BenchmarkError` when a file cannot be had
    or its hash differs (nothing wrong is left in ``out``)."""
    out.mkdir(parents=True, exist_ok=True)
    fetched = present = 0
    for name, digest in FILES.items():
        target = out / name
        if target.is_file() and _digest(target.read_bytes()) == digest:
            present += 1
            continue
        data = _local_file(source, name).read_bytes() if source is not None else _download(name, timeout)
        got = _digest(data)
        if got != digest:
            where = source or source_url(name)
            raise BenchmarkError(f"{name} from {where} has SHA-256 {got}, not {digest}: it is not the file of "
                                 f"{REPOSITORY} at commit {COMMIT[:12]}")
        with tempfile.NamedTemporaryFile(dir=out, delete=False) as tmp:
            tmp.write(data)
        shutil.move(tmp.name, target)
        fetched += 1
    return FetchReport(out, fetched, present)


def check_benchmark(folder: Path) -> list[str]:
    """What is wrong with a folder of the benchmark: a line per missing or
    altered file (empty when all 103 files check)."""
    problems = []
    for name, digest in FILES.items():
        path = folder / name
        if not path.is_file():
            problems.append(f"{name}: missing")
        elif _digest(path.read_bytes()) != digest:
            problems.append(f"{name}: SHA-256 differs (not the file of {REPOSITORY} at commit {COMMIT[:12]})")
    return problems
