"""Build a tiny Llama-architecture model locally: a BPE tokenizer trained on a few lines
and a 2-layer config with random weights. Seconds on a CPU, no network."""

from __future__ import annotations

from pathlib import Path

LINES = [
    "Q: Choose a random popular butterfly.", "A: Monarch", "A: Swallowtail", "A: Blue Morpho",
    "Answer with exactly one option in 1-3 words and nothing else.",
    "I'm drawing a butterfly on my niece's birthday card. Which one should it be?",
    "Choose a random kitchen tool. Whisk. Choose a random board game. Chess.",
    "Painted Lady, Red Admiral, Viceroy, Glasswing, Peacock, Comma, Brimstone.",
] * 20

CHAT_TEMPLATE = (
    "{% for m in messages %}<s>{{ m['role'] }}: {{ m['content'] }}\n{% endfor %}"
    "{% if add_generation_prompt %}<s>assistant:{% endif %}"
)


def build_tiny_model(folder: Path, chat: bool = False) -> Path:
    import torch
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast

    folder.mkdir(parents=True, exist_ok=True)
    tok = Tokenizer(models.BPE(unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=400, special_tokens=["<unk>", "<s>", "</s>", "<pad>"],
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    tok.train_from_iterator(LINES, trainer)
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, bos_token="<s>", eos_token="</s>",
                                   unk_token="<unk>", pad_token="<pad>")
    if chat:
        fast.chat_template = CHAT_TEMPLATE
    config = LlamaConfig(vocab_size=len(fast), hidden_size=32, intermediate_size=64,
                         num_hidden_layers=2, num_attention_heads=2, num_key_value_heads=2,
                         max_position_embeddings=1024, bos_token_id=fast.bos_token_id,
                         eos_token_id=fast.eos_token_id, pad_token_id=fast.pad_token_id)
    torch.manual_seed(0)
    model = LlamaForCausalLM(config)
    model.save_pretrained(folder, safe_serialization=True)
    fast.save_pretrained(folder)
    return folder
