"""Umm al-Qura Hijri months and Indian festival days, as compact tables (generated, do not edit).

Written by scripts/gen/calendars_table.py from hijridate (Umm al-Qura, 1365–1500 AH) and
holidays.calendars.hindu (2001–2035); the sources and the encoding are documented in that script.
"""

from datetime import date

HIJRI_FIRST_YEAR = 1365
HIJRI_FIRST_DAY = date(1945, 12, 5)
HIJRI_YEARS = (
    0xd55, 0x555, 0x555, 0xd55, 0x6d5, 0x555, 0xea5, 0xd2a, 0xaaa, 0xcd5, 0x655, 0x572,
    0xda9, 0x555, 0xaaa, 0x555, 0x52d, 0xa6d, 0x55a, 0x555, 0x74d, 0xd53, 0xd54, 0x556,
    0xd55, 0x2d5, 0xd55, 0xd54, 0xd45, 0x655, 0x52d, 0xa5d, 0x55a, 0xad5, 0x6aa, 0xd4b,
    0x52a, 0xa57, 0x4ae, 0x976, 0x56c, 0xb55, 0xaaa, 0xa55, 0x4ad, 0x95d, 0x2da, 0x5d9,
    0xdb2, 0xba4, 0xb4a, 0xa55, 0x2b5, 0x575, 0xb6a, 0xbd2, 0xbc4, 0xb89, 0xa95, 0x52d,
    0x5ad, 0xb6a, 0x6d4, 0xdc9, 0xd92, 0xaa6, 0x956, 0x2ae, 0x56d, 0x36a, 0xb55, 0xaaa,
    0x94d, 0x49d, 0x95d, 0x2ba, 0x5b5, 0x5aa, 0xd55, 0xa9a, 0x92e, 0x26e, 0x55d, 0xada,
    0x6d4, 0x6a5, 0x54b, 0xa97, 0x54e, 0xaae, 0x5ac, 0xba9, 0xd92, 0xb25, 0x64b, 0xcab,
    0x55a, 0xb55, 0x6d2, 0xea5, 0xe4a, 0xa95, 0x52d, 0xaad, 0x36c, 0x759, 0x6d2, 0x695,
    0x52d, 0xa5b, 0x4ba, 0x9ba, 0x3b4, 0xb69, 0xb52, 0xaa6, 0x4b6, 0x96d, 0x2ec, 0x6d9,
    0xeb2, 0xd54, 0xd2a, 0xa56, 0x4ae, 0x96d, 0xd6a, 0xb54, 0xb29, 0xa93, 0x52b, 0xa57,
    0x536, 0xab5, 0x6aa, 0xe93,
)
FESTIVAL_FIRST_YEAR = 2001
FESTIVAL_LAST_YEAR = 2035
FESTIVALS = {
    "diwali": "8u8k8a8t8h868p8e828l8b8u8j888r8g848n8c8v8k898s8h858o8e838l8b8u8j878q8f",
    "govardhan_puja": "8v8l8b8u8i878q8f838m8c8v8k898s8h858o8d8w8l8a8t8j878q8f848m8c8v8k888r8g",
    "chhath": "918q8f8y8n8d8w8l898r8h908o8e8x8n8b8t8i918q8f8z8o8d8v8k898r8h908q8e8x8m",
    "dussehra": "8b807q887x7n867v7j827r8a7y7o877x7l847t8b807q897y7n857u7j817r8a807o877w",
    "navaratri": "827s7h807p7e7x7m7a7t7j827q7g7y7n7c7v7k837s7h807p7d7w7l7b7t7j827r7f7y7n",
    "maha_ashtami": "897y7o877w7l847t7h807p887x7n867v7j827r897y7o877x7l847s7i7z7p887y7n857u",
    "maha_navami": "8a7z7o877w7m857u7i817q897x7n867w7k827r8a7z7p887x7m847t7i807q897z7n867v",
    "raksha_bandhan": "606i686q6f656o6d616k695z6g666p6f636m6b606i676q6g656o6d626j695y6h666p6e",
    "dayananda_jayanti": "1g1v1l1b1s1i171q1h131m1b1i1j191s1g151o1d1v1l1a1u1i171p1e131m1c1v1j181r",
    "pongal": "0e0e0f0f0e0e0f0f0e0e0f0f0e0e0f0f0e0e0f0f0e0e0f0f0e0e0f0f0e0e0f0f0e0e0f",
    "makar_sankranti": "0e0e0e0f0e0e0f0f0e0e0f0f0e0e0f0f0e0e0f0f0e0e0e0e0e0e0f0f0e0e0f0f0e0e0f",
    "vaisakhi": "2v2w2w2w2w2w2w2w2w2w2w2w2v2w2w2w2w2w2w2w2w2w2w2w2v2w2w2w2w2w2w2w2w2w2w",
    "onam": "6r6h6z6p766w6m746t6j706q776y6o766v6l726s6h6z6p776w6m736t6i706q6h6x6o75",
    "vasant_panchami": "0t1c110q180x0n160v0k130s190z0o170w0m140t1b100q190x0n160v0j120r1a0z0o17",
    "holi": "1x2g251v2d221r2a1y1o271w2e241t2c201p281y2g251v2d211r291z1o271w2f231s2b",
    "janmashtami": "686r6g6z6n6c6v6l6a6t6i676o6e6w6m6b6u6k696q6f6y6n6c6v6l6a6s6h666p6d6x6m",
    "buddha_purnima": "3c3v3k433z3p3e3x3k433t3j413q3g3y3m3c3u3k423s3h403o3d3w3l433t3j423q3f3y",
    "guru_gobind_singh": "020la3910505050505050v050i07050g05000d020k09000h06000f040f0a000i070h0g",
    "guru_ravidas": "131m1b111j180x1g140u1d121k190y1h150v1e141m1b101j170w1f150u1d121l190y1h",
    "pohela_boishakh": "2w2x2x2x2w2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x",
    "ganesh_chaturthi": "6i716r7a6y6n766v6j726s7b706p786x6l746t6j716r7a6z6n756v6k726s7b706o776w",
    "maha_shivaratri": "1g1z1o1d1v1l1b1u1i171p1f1x1m1c1v1j181r1g1y1o1d1w1l1a1t1i161p1f1y1m1c1v",
    "ram_navami": "2k332t2i302o2d2x2l2b2u2k312q2f2y2m2c2v2l332s2h302o2d2x2m342u2j322p2f2y",
    "guru_nanak_jayanti": "9a8z8o978v8l948u8i918q998x8m958v8k938s9b8z8o978w8l948u8j918q988y8m958v",
    "karwa_chauth": "8k897y8h857v8e837s8b808j877w8f857t8c828l897y8h867v8e837t8b808i877w8f85",
    "mahavir_jayanti": "2o372x2m342t2i312p3a2y2o362v2k332r2g2z2p372w2m342s2i302q382y2n362u2j32",
}
